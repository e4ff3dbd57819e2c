"""A snippet as you might paste it from a chat answer: it looks around and reports what it can do."""
import os
import socket
import sys

print(f"Hello from Python {sys.version.split()[0]} in the sandbox")
print(f"running as uid {os.getuid()}, working directory {os.getcwd()}")

try:
    open("/usr/lib/evil", "w")
    print("root filesystem: WRITABLE")
except OSError as e:
    print(f"root filesystem: read-only ({e.strerror})")

try:
    socket.create_connection(("example.org", 80), timeout=2)
    print("network: REACHABLE")
except OSError as e:
    print(f"network: unreachable ({e.strerror or e})")

secrets = [k for k in os.environ if "TOKEN" in k or "SECRET" in k or "KEY" in k]
print(f"host secrets visible: {secrets or 'none'}")

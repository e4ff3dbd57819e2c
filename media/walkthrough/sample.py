# A first sandbox run: press Ctrl+Alt+R (Cmd+Alt+Shift+R on macOS) or use the Run button above.
# The program runs in a fresh container: no network, a read-only file system, limited memory,
# CPU, processes and time. Its output appears in the "Sandbox Runner" output channel.
import os
import platform
import socket

print("Hello from", platform.python_implementation(), platform.python_version())
print("user id:", os.getuid())
try:
    socket.create_connection(("example.com", 80), timeout=2)
    print("network: reachable")
except OSError as e:
    print("network: blocked as expected:", type(e).__name__)
try:
    open("/etc/sandbox-test", "w")
except OSError as e:
    print("file system: read-only as expected:", type(e).__name__)

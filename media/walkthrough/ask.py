# An interactive run: "Run in Sandbox (Interactive)" gives the program a terminal of its own,
# so it can read what you type. Still no network, a read-only file system and the same limits.
name = input("What is your name? ")
print(f"Hello, {name}! This answer came from inside the sandbox.")

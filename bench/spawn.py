"""spawn.py - the one way bench/ starts the program it measures."""
import os


def start(argv):
    """Fork and exec argv; return the child's pid (127 if exec fails).

    The child is left unreaped, so that the caller can read its
    /proc/PID files once it has exited (waitid with WNOWAIT)."""
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    return pid

"""The addresses at which phones on the same network can open this machine.

`python -m rami_site.addresses PORT` prints them when `make run` starts the server.
"""

import socket
import sys


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback, best first."""
    found: list[str] = []
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        infos = []
    for info in infos:
        address = info[4][0]
        if not address.startswith("127.") and address not in found:
            found.append(address)
    if not found:
        # Connecting a UDP socket sends no packet; it only asks the kernel which
        # interface would route to that (documentation-range) address.
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            try:
                probe.connect(("192.0.2.1", 9))
                address = probe.getsockname()[0]
            except OSError:
                address = ""
        if address and not address.startswith("127."):
            found.append(address)
    return found


def main(port: str) -> None:
    print(f"Rami score keeper: open http://127.0.0.1:{port}/ on this machine", flush=True)
    for address in lan_addresses():
        print(f"  and http://{address}:{port}/ on a phone on the same network", flush=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "8000")

"""The addresses at which phones on the same network can open this machine.

`python -m rami_site.addresses PORT` prints them when `make run` starts the server (the app's
share links use the same addresses: scoring.web.sharing.lan_addresses).
"""

import sys

from scoring.web.sharing import lan_addresses


def main(port: str) -> None:
    print(f"Rami score keeper: open http://127.0.0.1:{port}/ on this machine", flush=True)
    for address in lan_addresses():
        print(f"  and http://{address}:{port}/ on a phone on the same network", flush=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "8000")

#!/usr/bin/env python3
"""Fetch a segmented object with python-ndn's segment fetcher
(ndn.app_support.segment_fetcher) and write it to a file.

Usage: app_segment_fetcher.py NAME OUTPUT
The forwarder comes from NDN_CLIENT_TRANSPORT (e.g. unix:///tmp/x.sock).
Prints one JSON line: {"segments": N, "bytes": B}. Exit 1 on failure.
"""
import json
import sys

from ndn.app import NDNApp
from ndn.app_support.segment_fetcher import segment_fetcher
from ndn.security import KeychainDigest


def main() -> int:
    name, out = sys.argv[1], sys.argv[2]
    # no keychain needed to fetch; avoids creating ~/.ndn/pib.db
    app = NDNApp(keychain=KeychainDigest())
    result = {"ok": False}

    async def run():
        try:
            buf = bytearray()
            n = 0
            async for seg in segment_fetcher(app, name, timeout=4000, retry_times=5):
                buf.extend(seg)
                n += 1
            with open(out, "wb") as f:
                f.write(buf)
            result.update(ok=True, segments=n, bytes=len(buf))
        except Exception as e:  # reported to the Rust test
            result.update(error=f"{type(e).__name__}: {e}")
        finally:
            app.shutdown()

    app.run_forever(after_start=run())
    print(json.dumps(result))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())

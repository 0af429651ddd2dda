"""python-ndn consumer for the `ndnlab fwd` interop tests (unmodified python-ndn).

Fetches PREFIX/0 .. PREFIX/(COUNT-1) with WINDOW Interests in flight and checks
each Data's size. `--expect-fail` instead expresses one Interest and succeeds only
if it gets a Nack or a timeout. Prints one JSON line with the outcome.

    NDN_CLIENT_TRANSPORT=unix:///tmp/x.sock python fwd_consumer.py /ndnlab/p --count 1000
"""
import argparse
import asyncio
import json
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument('prefix')
parser.add_argument('--count', type=int, default=1000)
parser.add_argument('--window', type=int, default=32)
parser.add_argument('--size', type=int, default=100)
parser.add_argument('--lifetime', type=int, default=4000)
parser.add_argument('--expect-fail', action='store_true')
parser.add_argument('--api', choices=['v1', 'v2'], default='v1')
parser.add_argument('--progress', type=int, default=0, help='print `progress` after this many Data')
args = parser.parse_args()

result = {}


def run_v1():
    from ndn.app import NDNApp
    from ndn.types import InterestNack, InterestTimeout
    app = NDNApp()

    async def fetch(i):
        name = f'{args.prefix}/{i}'
        _, _, content = await app.express_interest(name, must_be_fresh=False, can_be_prefix=False,
                                                   lifetime=args.lifetime)
        return content

    async def main():
        try:
            if args.expect_fail:
                try:
                    await fetch('x')
                    result['outcome'] = 'data'
                except InterestNack as e:
                    result['outcome'] = 'nack'
                    result['reason'] = e.reason
                except InterestTimeout:
                    result['outcome'] = 'timeout'
                return
            sem = asyncio.Semaphore(args.window)
            bad = 0
            errors = {}
            done = 0

            async def one(i):
                nonlocal bad
                nonlocal done
                async with sem:
                    try:
                        c = await fetch(i)
                        if c is None or len(bytes(c)) != args.size:
                            bad += 1
                        done += 1
                        if done == args.progress:
                            print('progress', flush=True)
                    except Exception as e:  # noqa: BLE001 (report every failure kind)
                        errors[type(e).__name__] = errors.get(type(e).__name__, 0) + 1
            t0 = time.monotonic()
            await asyncio.gather(*(one(i) for i in range(args.count)))
            result['seconds'] = time.monotonic() - t0
            result['fetched'] = args.count - bad - sum(errors.values())
            result['bad'] = bad
            result['errors'] = errors
        finally:
            app.shutdown()

    app.run_forever(after_start=main())


def run_v2():
    from ndn.appv2 import NDNApp, pass_all
    from ndn.types import InterestNack, InterestTimeout
    app = NDNApp()

    async def fetch(i):
        _, content, _ = await app.express(f'{args.prefix}/{i}', validator=pass_all, lifetime=args.lifetime)
        return content

    async def main():
        try:
            if args.expect_fail:
                try:
                    await fetch('x')
                    result['outcome'] = 'data'
                except InterestNack as e:
                    result['outcome'] = 'nack'
                    result['reason'] = e.reason
                except InterestTimeout:
                    result['outcome'] = 'timeout'
                return
            ok = 0
            for i in range(args.count):
                c = await fetch(i)
                ok += int(c is not None and len(bytes(c)) == args.size)
            result['fetched'] = ok
        finally:
            app.shutdown()

    app.run_forever(after_start=main())


if args.api == 'v1':
    run_v1()
else:
    run_v2()
print(json.dumps(result), flush=True)
sys.exit(0)

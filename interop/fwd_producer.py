"""python-ndn producer for the `ndnlab fwd` interop tests (unmodified python-ndn).

Registers PREFIX through the forwarder's management protocol and answers every
Interest under it with SIZE bytes. Prints `registered` (or `register-failed`) after
each (re)connection; reconnects when the forwarder restarts, as an app written for
NFD would. Reads commands on stdin: `unregister` (prints `unregistered`), `quit`.

    NDN_CLIENT_TRANSPORT=unix:///tmp/x.sock python fwd_producer.py /ndnlab/p --size 100 [--api v2]
"""
import argparse
import asyncio
import sys

parser = argparse.ArgumentParser()
parser.add_argument('prefix')
parser.add_argument('--size', type=int, default=100)
parser.add_argument('--api', choices=['v1', 'v2'], default='v1')
parser.add_argument('--freshness', type=int, default=0)
args = parser.parse_args()
content = bytes((i % 251 for i in range(args.size)))


def say(s):
    print(s, flush=True)


async def stdin_commands(unregister):
    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            return
        cmd = line.strip()
        if cmd == 'unregister':
            ok = await unregister()
            say('unregistered' if ok else 'unregister-failed')
        elif cmd == 'quit':
            say('bye')
            sys.stdout.flush()
            import os
            os._exit(0)


def run_v1():
    from ndn.app import NDNApp
    app = NDNApp()

    def on_interest(name, _param, _app_param):
        app.put_data(name, content=content, freshness_period=args.freshness)

    async def after_start():
        ok = await app.register(args.prefix, on_interest)
        say('registered' if ok else 'register-failed')

    async def forever():
        asyncio.get_running_loop().create_task(stdin_commands(lambda: app.unregister(args.prefix)))
        while True:
            try:
                await app.main_loop(after_start=after_start())
            except (FileNotFoundError, ConnectionError, OSError):
                pass
            say('disconnected')
            await asyncio.sleep(0.1)

    asyncio.run(forever())


def run_v2():
    from ndn.appv2 import NDNApp
    from ndn import security as sec

    app = NDNApp()
    signer = sec.DigestSha256Signer()

    @app.route(args.prefix)
    def on_interest(name, _param, reply, _context):
        reply(app.make_data(name, content=content, signer=signer, freshness_period=args.freshness))

    async def after_start():
        ok = await app.register(args.prefix)
        say('registered' if ok else 'register-failed')

    async def forever():
        asyncio.get_running_loop().create_task(stdin_commands(lambda: app.unregister(args.prefix)))
        while True:
            try:
                await app.main_loop(after_start=after_start())
            except (FileNotFoundError, ConnectionError, OSError):
                pass
            say('disconnected')
            await asyncio.sleep(0.1)

    asyncio.run(forever())


if args.api == 'v1':
    run_v1()
else:
    run_v2()

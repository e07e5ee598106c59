"""A loopback HTTP receiver for the benchmark's SMS and webhook cases: answers every request at
once (HTTP/1.1, keep-alive) with `201 {"sid": ...}`, as Twilio's Messages API does, which a
webhook delivery takes as a 2xx too. Reads each request whole (headers and Content-Length body)
and keeps nothing.

    python3 http_sink.py PORT
"""

import asyncio
import itertools
import sys

COUNTER = itertools.count(1)


def response():
    body = b'{"sid": "SM%032d", "status": "queued"}' % next(COUNTER)
    return (b"HTTP/1.1 201 Created\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n%s" % (len(body), body))


async def serve(reader, writer):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            if length:
                await reader.readexactly(length)
            writer.write(response())
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def main(port):
    server = await asyncio.start_server(serve, "127.0.0.1", port, backlog=1024)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))

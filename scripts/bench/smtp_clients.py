"""The loopback SMTP sink's own ceiling: N client processes (smtplib), each sending M messages
down one connection. Prints messages per second.

    python3 scripts/bench/smtp_clients.py PORT CLIENTS MESSAGES
"""

import multiprocessing
import smtplib
import sys
import time

BODY = ("From: bench@localhost\r\nTo: sink@localhost\r\nSubject: ceiling\r\n\r\n"
        + ("x" * 75 + "\r\n") * 40)


def client(port, messages):
    with smtplib.SMTP("127.0.0.1", port) as smtp:
        for i in range(messages):
            smtp.sendmail("bench@localhost", ["sink@localhost"],
                          f"Message-ID: <ceiling-{i}@bench>\r\n{BODY}")


def main():
    port, clients, messages = (int(a) for a in sys.argv[1:4])
    workers = [multiprocessing.Process(target=client, args=(port, messages)) for _ in range(clients)]
    started = time.time()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    if any(w.exitcode for w in workers):
        sys.exit("an SMTP client failed")
    print(f"{clients * messages / (time.time() - started):.0f}")


if __name__ == "__main__":
    main()

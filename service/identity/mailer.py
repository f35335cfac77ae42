"""Sign-in mails, sent from this process's memory (a link is kept nowhere else but as a
hash): through ``SMTP_URL`` by one sender thread with a bounded queue, or, on the
embedded default without ``SMTP_URL``, printed on the server's console (stderr) so that
trying the service needs nothing else. A request never waits for the mail server:
whether an address has an account or not, the answer goes out as soon as the mail is
queued (no enumeration through timing)."""

from __future__ import annotations

import logging
import queue
import sys
import threading
from collections.abc import Callable
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

from service.errors import Forbidden, Unavailable
from service.notifications.channels import hand_to_smtp

log = logging.getLogger("tongiaki.identity")
QUEUE = 1000  # mails waiting in one process at most


class Mailer:
    """Hands sign-in mails to SMTP (or the console) in the background."""

    def __init__(
        self,
        smtp_url: str,
        sender: str,
        *,
        console: bool,
        send: Callable[[str, EmailMessage], tuple[bool, str]] = hand_to_smtp,
    ) -> None:
        self.smtp_url = smtp_url
        self.sender = sender
        self.console = console and not smtp_url
        self._send = send
        self._queue: queue.Queue[EmailMessage] = queue.Queue(QUEUE)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def available(self) -> bool:
        """Whether a sign-in mail can go anywhere (SMTP, or the console)."""
        return bool(self.smtp_url) or self.console

    def check(self) -> None:
        """403 ``email_unavailable`` when this server sends no mail (a setting: retrying
        does not help)."""
        if not self.available:
            raise Forbidden(
                "email_unavailable",
                "this server sends no mail (its operator set no SMTP_URL): sign in with a"
                " passkey or a token",
            )

    def send(self, to: str, subject: str, text: str) -> None:
        """Queue one mail (403 when mail is not set up, 503 when the queue is full)."""
        self.check()
        message = EmailMessage()
        message["From"] = self.sender
        message["To"] = to
        message["Subject"] = subject
        message["Date"] = formatdate(usegmt=True)
        message["Message-ID"] = make_msgid(domain="tongiaki")
        message.set_content(text)
        try:
            self._queue.put_nowait(message)
        except queue.Full:
            raise Unavailable(
                "email_busy",
                "too many mails are waiting to be sent; retry in a minute",
                retry_after=30,
            ) from None
        self._start()

    def _start(self) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="sign-in-mail", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while True:
            message = self._queue.get()
            try:
                if self.console:
                    print_to_console(message)
                else:
                    ok, detail = self._send(self.smtp_url, message)
                    if not ok:  # the address is not logged: it is not the operator's to read
                        log.warning("a sign-in mail was not sent: %s", detail)
            except Exception:
                log.exception("a sign-in mail failed")
            finally:
                self._queue.task_done()

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until every queued mail is handed over (tests, shutdown)."""
        done = threading.Event()

        def wait() -> None:
            self._queue.join()
            done.set()

        threading.Thread(target=wait, daemon=True).start()
        return done.wait(timeout)


def print_to_console(message: EmailMessage) -> None:
    """A mail on the server's console, as the embedded default shows sign-in links."""
    body = message.get_content().rstrip()
    sys.stderr.write(
        "\n---- sign-in mail (no SMTP_URL: shown here instead of sent) ----\n"
        f"To: {message['To']}\nSubject: {message['Subject']}\n\n{body}\n"
        "-----------------------------------------------------------------\n"
    )
    sys.stderr.flush()

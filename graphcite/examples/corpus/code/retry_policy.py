"""Retry helpers shared by Larkspur services.

Each helper takes the callable that does the real work, so the retry rules live in one place and
can be tested without a network. The rules come from DR-017 (webhook relay) and DR-021 (carrier
adapters).
"""

import time

DELIVERY_ATTEMPTS = 5
DELIVERY_WAITS_S = (60, 300, 1800, 7200)
TRACKING_POLL_ATTEMPTS = 3
LEGACY_RETRIES = 3


class TransientError(Exception):
    """A failure that may succeed on another try: 5xx, 429 or a connection timeout."""


def deliver_webhook(send, event, sleep=time.sleep):
    """Deliver one event, making at most five attempts with the DR-017 waits between them."""
    for attempt in range(1, DELIVERY_ATTEMPTS + 1):
        try:
            return send(event)
        except TransientError:
            if attempt == DELIVERY_ATTEMPTS:
                raise
            sleep(DELIVERY_WAITS_S[attempt - 1])
    raise AssertionError("unreachable")


def poll_tracking_status(fetch, tracking_number, sleep=time.sleep):
    """Read the carrier status of a tracking number, making three attempts one second apart."""
    for attempt in range(1, TRACKING_POLL_ATTEMPTS + 1):
        try:
            return fetch(tracking_number)
        except TransientError:
            if attempt == TRACKING_POLL_ATTEMPTS:
                raise
            sleep(1)
    raise AssertionError("unreachable")


def submit_label(create, request):
    """Ask an adapter for a label with a single attempt; the dispatcher never retries labels."""
    return create(request)


def legacy_deliver_webhook(send, event, sleep=time.sleep):
    """The 2022 relay behaviour: the first try plus three retries, 30 seconds apart.

    Not called by any service; kept so that replay tests can reproduce old delivery logs.
    """
    for attempt in range(LEGACY_RETRIES + 1):
        try:
            return send(event)
        except TransientError:
            if attempt == LEGACY_RETRIES:
                raise
            sleep(30)
    raise AssertionError("unreachable")

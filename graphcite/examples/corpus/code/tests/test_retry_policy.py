"""Scenario tests for retry_policy: how many times each helper calls the work it wraps."""

import pytest

from retry_policy import (
    TransientError,
    deliver_webhook,
    legacy_deliver_webhook,
    poll_tracking_status,
    submit_label,
)


class Flaky:
    """A callable that fails a given number of times before it succeeds."""

    def __init__(self, failures):
        self.failures = failures
        self.calls = 0

    def __call__(self, *args):
        self.calls += 1
        if self.calls <= self.failures:
            raise TransientError("try again")
        return "ok"


def no_sleep(seconds):
    pass


def test_deliver_webhook_gives_up_after_five_attempts():
    send = Flaky(failures=10)
    with pytest.raises(TransientError):
        deliver_webhook(send, {"id": "evt_1"}, sleep=no_sleep)
    assert send.calls == 5


def test_deliver_webhook_succeeds_on_the_last_attempt():
    send = Flaky(failures=4)
    assert deliver_webhook(send, {"id": "evt_2"}, sleep=no_sleep) == "ok"
    assert send.calls == 5


def test_deliver_webhook_waits_follow_the_dr017_table():
    waits = []
    send = Flaky(failures=10)
    with pytest.raises(TransientError):
        deliver_webhook(send, {"id": "evt_3"}, sleep=waits.append)
    assert waits == [60, 300, 1800, 7200]


def test_poll_tracking_status_makes_three_attempts():
    fetch = Flaky(failures=10)
    with pytest.raises(TransientError):
        poll_tracking_status(fetch, "LK123", sleep=no_sleep)
    assert fetch.calls == 3


def test_submit_label_makes_one_attempt():
    create = Flaky(failures=1)
    with pytest.raises(TransientError):
        submit_label(create, {"parcel": "p_9"})
    assert create.calls == 1


def test_legacy_delivery_makes_four_attempts():
    send = Flaky(failures=10)
    with pytest.raises(TransientError):
        legacy_deliver_webhook(send, {"id": "evt_4"}, sleep=no_sleep)
    assert send.calls == 4

"""``Runtime.after_ack``: the one way a listener hands over its work after the ack."""

import time

from bot.errors import BadArgument
from bot.slack.error_handler import SORRY
from bot.slack.runtime import Background, Runtime


class Respond:
    def __init__(self):
        self.sent = []

    def __call__(self, **kwargs):
        self.sent.append(kwargs)


def test_the_work_gets_the_runtime_of_the_requests_workspace(ctx):
    runtime = Runtime(ctx, Background(ctx.store, workers=2))
    seen = []
    runtime.after_ack({"workspace": "T2"}, {"user_id": "U1", "trigger_id": "t.ws"},
                      lambda rt: seen.append(rt.ctx.workspace))
    runtime.background.shutdown()
    assert seen == [runtime.for_workspace("T2").ctx.workspace] and seen != [ctx.workspace]


def test_one_persons_work_runs_in_order_and_once_per_request(ctx):
    runtime = Runtime(ctx, Background(ctx.store, workers=4))
    done = []
    for i in range(5):
        runtime.after_ack({"workspace": ctx.workspace}, {"user_id": "U1", "trigger_id": f"t.order.{i}"},
                          # the first is slow work: were the order not kept, the others would overtake it
                          lambda rt, i=i: (time.sleep(0.05 if i == 0 else 0), done.append(i)))
    runtime.after_ack({"workspace": ctx.workspace}, {"user_id": "U1", "trigger_id": "t.order.0"},
                      lambda rt: done.append("again"))  # the same request replayed
    runtime.background.shutdown()
    assert done == list(range(5))


def test_a_failure_reaches_the_one_error_handler_through_respond(ctx):
    runtime = Runtime(ctx, Background(ctx.store, workers=2))
    respond = Respond()
    body = {"command": "/papers", "user_id": "U1"}
    runtime.after_ack({"workspace": ctx.workspace}, {**body, "trigger_id": "t.bad"},
                      lambda rt: (_ for _ in ()).throw(BadArgument("No such thing")), respond)
    runtime.after_ack({"workspace": ctx.workspace}, {**body, "trigger_id": "t.crash"},
                      lambda rt: 1 / 0, respond)
    runtime.background.shutdown()
    texts = [sent["text"] for sent in respond.sent]
    assert texts[0].startswith("No such thing") and texts[1] == SORRY

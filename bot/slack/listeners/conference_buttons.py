"""The Going and Skip buttons of a conference plan (:mod:`bot.usecases.conference`): a click records the
clicker's choice for that paper and redraws their plan as the database has it."""

from __future__ import annotations

from slack_bolt import App

from bot.slack.runtime import Runtime
from bot.slack.views.conference_plans import GOING_ACTION, SKIP_ACTION, chosen_in, plan_message
from bot.usecases.conference import choose

GONE = "That paper is no longer in your plan. Ask for the plan again to see it as it is now."
CHOICE_OF = {GOING_ACTION: "going", SKIP_ACTION: "skip"}


def register(app: App, runtime: Runtime) -> None:
    """Register the Going and Skip buttons."""

    def on_choice(ack, body: dict, action: dict, respond, context) -> None:
        ack()
        user = body["user"]["id"]
        named = chosen_in(action.get("value") or "")
        choice = CHOICE_OF.get(action.get("action_id") or "")

        def work(rt: Runtime) -> None:
            plan = None
            if named is not None and choice is not None:
                plan = choose(rt.ctx, user, named[0], named[1], choice)
            if plan is None:
                respond(text=GONE, response_type="ephemeral", replace_original=False)
                return
            respond(replace_original=True, **plan_message(plan))

        runtime.after_ack(context, body, work, respond)

    app.action(GOING_ACTION)(on_choice)
    app.action(SKIP_ACTION)(on_choice)

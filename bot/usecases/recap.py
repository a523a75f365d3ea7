"""A channel's weekly recap ("the lab's week", issue 43): once a week, at the day and time set in the
timezone of whoever set it (Friday 16:00 unless they said otherwise), what the workspace liked and saved
in the past :data:`~bot.usecases.trending.DAYS` days (the top :data:`TOP`, with counts, never who: the
trending post's counts, :func:`bot.usecases.trending.trending_papers`) and the *unclaimed*: papers among
the channel's best for its topics (ranked by the one picking pipeline, as its digest and polls are:
:func:`bot.usecases.digests.choose.choose_papers`) that nobody in the workspace was shown, rated or saved.
The unclaimed a recap names are then kept as shown in the channel, so the next recap (and its digest)
offer others.

Each channel's recap for a week is made exactly once across processes by the rule the weekly trending
post follows (:func:`bot.usecases.weekly_posts.post_once`, a :data:`storage.leases.RECAP` lease keyed by
the channel and the local date it is due): a failed post (Slack down) is given back and tried again, never
doubled. A recap set after this week's time starts with the next one. Data only: the caller's
:data:`Poster` words and posts it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from bot.errors import NoInterests, NoPapers
from bot.state.context import Context
from bot.state.owner import owner_alive, owner_id
from bot.usecases.channel_subjects import follows_nothing, set_up
from bot.usecases.digest_due import due_at, local_date
from bot.usecases.digest_vocabulary import Alive, Clock, Note, utc_now
from bot.usecases.digests.choose import Chooser
from bot.usecases.picking import Recommendation, local_today
from bot.usecases.recommend import remember_shown
from bot.usecases.trending import TrendingPaper, trending_papers
from bot.usecases.weekly_posts import WeeklyLease, WeeklyStatus, each_channel, post_once
from storage.leases import RECAP
from storage.moments import iso_utc
from storage.recaps import RecapSetting

log = logging.getLogger(__name__)

DEFAULT_WEEKDAY, DEFAULT_TIME = 4, "16:00"  # Friday at 16:00, the end of the lab's week
TOP = 10  # the workspace's liked and saved papers in a recap
UNCLAIMED = 5  # unclaimed papers in a recap
POOL = 30  # the channel's best papers the unclaimed are found among


@dataclass(frozen=True)
class Recap:
    """One channel's recap: the workspace's most liked (then saved) papers of the week, with counts and
    nobody's id (``liked``), and the channel's best papers nobody was shown or rated (``unclaimed``, each
    with why it fits the channel). ``follows_topics``: the channel has a profile to find them by."""

    channel_id: str
    liked: list[TrendingPaper]
    unclaimed: list[Recommendation] = field(default_factory=list)
    follows_topics: bool = True

    @property
    def empty(self) -> bool:
        return not self.liked and not self.unclaimed


#: Posts a recap into its channel: ``poster(channel, recap) -> message ts``. Raises Unreachable (not in
#: the channel), Outage (Slack down), or any other exception for a failed post.
Poster = Callable[[str, Recap], str]


@dataclass(frozen=True)
class RecapOutcome:
    """What became of one channel's recap of one week (keyed by the local date it was due)."""

    channel_id: str
    week: date
    status: WeeklyStatus
    note: Note | None = None


def set_recap(ctx: Context, channel_id: str, set_by: str, tz: str | None, weekday: int = DEFAULT_WEEKDAY,
              hhmm: str = DEFAULT_TIME, now: datetime | None = None) -> RecapSetting:
    """Turn the channel's weekly recap on (or move it): ``weekday`` (0 = Monday) at ``hhmm`` in ``tz``,
    the timezone of who set it (None: UTC). From this week's time if it is still to come, else the next."""
    set_up(ctx, channel_id, set_by)
    since = iso_utc(now or datetime.now(UTC))
    ctx.store.set_recap(channel_id, weekday, hhmm, tz, since)
    return ctx.store.get_recap(channel_id) or RecapSetting(channel_id, weekday, hhmm, tz, since)


def recap_off(ctx: Context, channel_id: str) -> bool:
    """Turn the channel's recap off; False when it had none (nothing is written)."""
    return ctx.store.recap_off(channel_id)


def latest_due(setting: RecapSetting, now: datetime) -> tuple[date, datetime]:
    """The week's recap due at or before ``now``: (the local date it is due, which keys it; the instant)."""
    today = local_date(setting.tz, now)
    day = today - timedelta(days=(today.weekday() - setting.weekday) % 7)
    when = due_at(setting.tz, setting.at_time, day)
    if when > now:
        day -= timedelta(days=7)
        when = due_at(setting.tz, setting.at_time, day)
    return day, when


def next_recap(setting: RecapSetting, now: datetime) -> datetime:
    """When the channel's next recap is due (as of ``now``): this week's if still to come (or due and not
    made, set before it), else the next week's."""
    day, when = latest_due(setting, now)
    if setting.since is not None and datetime.fromisoformat(setting.since) <= when \
            and (setting.last_week is None or setting.last_week < day.isoformat()):
        return when  # due, and not made yet
    return due_at(setting.tz, setting.at_time, day + timedelta(days=7))


def recap_of(ctx: Context, channel_id: str, now: datetime) -> Recap:
    """The channel's recap as of ``now`` (see the module); records nothing."""
    liked = trending_papers(ctx, now, TOP)
    if follows_nothing(ctx, channel_id):
        return Recap(channel_id, liked, follows_topics=False)
    return Recap(channel_id, liked, unclaimed_papers(ctx, channel_id, now))


def unclaimed_papers(ctx: Context, channel_id: str, now: datetime,
                     size: int = UNCLAIMED) -> list[Recommendation]:
    """Of the channel's :data:`POOL` best papers (the picking pipeline's: never one it was shown), the
    ``size`` best nobody in the workspace was shown, rated or saved."""
    try:
        chooser = Chooser(ctx, (), POOL, record_feeds=False)  # a look, not a digest: it records nothing
        best = chooser.choose(channel_id, local_today(ctx, channel_id, now))
    except (NoInterests, NoPapers):
        return []
    free = ctx.store.unclaimed([r.paper.id for r in best])
    return [r for r in best if r.paper.id in free][:size]


def post_due_recaps(ctx: Context, now: datetime, poster: Poster, owner: str | None = None,
                    clock: Clock = utc_now, alive: Alive = owner_alive) -> list[RecapOutcome]:
    """Post every recap of this workspace due at ``now``, each once a week (see the module): one
    statement when none is due."""
    def due() -> Iterator[tuple[str, date]]:
        for setting in ctx.store.recap_settings():
            day, when = latest_due(setting, now)
            if setting.since is None or datetime.fromisoformat(setting.since) > when:
                continue  # set after this week's time: from the next one
            if setting.last_week is not None and setting.last_week >= day.isoformat():
                continue  # made this week
            yield setting.channel_id, day

    def post(channel: str, day: date) -> RecapOutcome | None:
        return _post_one(ctx, channel, day, now, poster, owner or owner_id(), clock, alive)

    return each_channel("recap", due(), post,
                        lambda channel, day, note: RecapOutcome(channel, day, "incomplete", note))


def _post_one(ctx: Context, channel: str, day: date, now: datetime, poster: Poster, owner: str,
              clock: Clock, alive: Alive) -> RecapOutcome | None:
    store, key = ctx.store, (channel, day.isoformat())

    def holder() -> str | None:
        record = store.get_recap_post(*key)
        return record.owner if record else None

    def send() -> tuple[str, bool]:
        recap = recap_of(ctx, channel, now)
        ts = poster(channel, recap)
        try:
            for rec in recap.unclaimed:  # shown in the channel now: the next recap (and digest) offer others
                remember_shown(ctx, channel, rec, channel=channel)
        except Exception:  # posted: never posted again for it (the lease ends as posted)
            log.exception("the unclaimed papers of %s's recap were not kept as shown", channel)
        return ts, recap.empty

    lease = WeeklyLease(RECAP, key, holder, lambda who, ts: store.record_recap_message(*key, who, ts))
    ended = post_once(ctx, lease, now, send, owner, clock, alive, "recap")
    return RecapOutcome(channel, day, ended.status, ended.note) if ended else None

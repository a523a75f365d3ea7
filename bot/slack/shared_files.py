"""A library export shared in paperbot's DM, read from Slack and imported (issue 27, "Bring your library").

Slack says what the file is (``files.info``: name, kind, size, ``url_private_download``); a file of
another kind or over 5 MB is answered without being downloaded. The file is downloaded with the bot
token of the workspace (``files:read``), only from Slack's own hosts (or the Web API's, a stand-in's in
tests), over urllib3 with a timeout and a hard cap on the bytes read, then read
(:mod:`bot.sources.library_exports`) and imported (:mod:`bot.usecases.library`). One reply in the DM says what
came of it. Each file is read once per person: of the two events of one share, the one that claims the
file in the database reads it; a read that failed can be tried again by sharing the file again.
"""

from __future__ import annotations

import http.client
import logging
from urllib.parse import urlsplit

import urllib3
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from bot.errors import PaperbotError
from bot.slack.error_handler import SORRY
from bot.slack.runtime import Runtime
from bot.slack.views import library as views
from bot.sources.library_exports import NotALibrary, library_kind, read_library
from bot.usecases.library import MAX_BYTES, LibraryReport, claim_import, finish_import, import_library
from storage import StorageError
from storage.models import LibraryImportStatus

log = logging.getLogger(__name__)

#: Slack's file servers: the only hosts the bot token is sent to (besides the Web API's own).
SLACK_DOMAIN = "slack.com"
TIMEOUT = urllib3.Timeout(connect=10.0, read=30.0)
CHUNK = 64 * 1024

# Redirects keep to Slack's files; urllib3 drops the Authorization header on a redirect to another host.
_pool = urllib3.PoolManager(num_pools=4, maxsize=4, retries=urllib3.Retry(total=2, redirect=3,
                                                                         raise_on_status=False))


class DownloadFailed(PaperbotError):
    """Slack did not hand the file over (an error, no answer in time, or not the file); says why, for the
    log."""


class TooBig(PaperbotError):
    """The file is over :data:`~bot.usecases.library.MAX_BYTES`."""

    def __init__(self, size: int) -> None:
        super().__init__(f"{size} bytes")
        self.size = size


def file_info(client: WebClient, file_id: str) -> dict:
    """What Slack says of a shared file (``files.info``). Raises DownloadFailed."""
    try:
        answer = client.files_info(file=file_id)
    except SlackApiError as exc:
        error = exc.response.get("error") if exc.response is not None else None
        raise DownloadFailed(f"files.info said {error}") from exc
    except (SlackClientError, OSError, http.client.HTTPException) as exc:
        raise DownloadFailed(f"files.info failed: {exc}") from exc
    found = answer.get("file")
    if not isinstance(found, dict):
        raise DownloadFailed("files.info gave no file")
    return found


def trusted(url: str, api_url: str) -> bool:
    """Whether ``url`` is on Slack's own hosts (https), or on the Web API's host (a stand-in's): the bot
    token goes nowhere else."""
    parts, api = urlsplit(url), urlsplit(api_url)
    host = (parts.hostname or "").lower()
    if parts.scheme == "https" and (host == SLACK_DOMAIN or host.endswith("." + SLACK_DOMAIN)):
        return True
    return bool(host) and (parts.scheme, host, parts.port) == (api.scheme, (api.hostname or "").lower(),
                                                               api.port)


def download(client: WebClient, url: str, limit: int = MAX_BYTES) -> bytes:
    """The file at ``url_private_download``, with the client's bot token. Raises TooBig past ``limit``
    bytes (said, or read), DownloadFailed otherwise."""
    if not url or not trusted(url, client.base_url):
        raise DownloadFailed("the file's download URL is not Slack's")
    try:
        response = _pool.request("GET", url, headers={"Authorization": f"Bearer {client.token}"},
                                 preload_content=False, timeout=TIMEOUT)
    except (urllib3.exceptions.HTTPError, OSError) as exc:
        raise DownloadFailed(f"download failed: {exc}") from exc
    try:
        if response.status != 200:
            raise DownloadFailed(f"download answered HTTP {response.status}")
        if "text/html" in (response.headers.get("Content-Type") or ""):
            # Slack's sign-in page, its answer to a token it won't give the file to (no files:read).
            raise DownloadFailed("download answered with a web page, not the file")
        said = response.headers.get("Content-Length") or ""
        if said.isdigit() and int(said) > limit:
            raise TooBig(int(said))
        data = bytearray()
        for chunk in response.stream(CHUNK):
            data += chunk
            if len(data) > limit:
                raise TooBig(len(data))
        return bytes(data)
    except (urllib3.exceptions.HTTPError, OSError) as exc:
        raise DownloadFailed(f"download failed: {exc}") from exc
    finally:
        response.release_conn()


def import_shared_file(rt: Runtime, client: WebClient, user_id: str, channel: str, file_id: str) -> None:
    """Read a file a person shared in the DM ``channel`` into their library, once, and answer there
    (nothing when another request has the file, or had it)."""
    claimed = claim_import(rt.ctx, user_id, file_id)
    if claimed is None:
        return
    name, status, report, error = "", "failed", None, None
    try:
        info = file_info(client, file_id)
        name = str(info.get("name") or info.get("title") or "")
        text, status, report = _read(rt, client, user_id, info, name)
    except DownloadFailed as exc:
        log.warning("could not read file %s shared by %s: %s", file_id, user_id, exc)
        text, error = views.not_downloaded(name), str(exc)
    except StorageError as exc:
        log.warning("importing file %s of %s failed: %s", file_id, user_id, exc)
        text, error = views.not_saved(name), str(exc)
    except Exception as exc:
        log.exception("importing file %s of %s failed", file_id, user_id)
        text, error = SORRY, type(exc).__name__
    try:
        finish_import(rt.ctx, user_id, file_id, claimed, status, report, error)
    except StorageError as exc:  # the answer still goes: the claim lapses and the file may come again
        log.warning("could not record the import of file %s: %s", file_id, exc)
    try:
        client.chat_postMessage(channel=channel, text=text, unfurl_links=False, unfurl_media=False)
    except (SlackClientError, OSError, http.client.HTTPException) as exc:
        log.warning("could not answer a shared file in %s: %s", channel, exc)


def _read(rt: Runtime, client: WebClient, user_id: str, info: dict,
          name: str) -> tuple[str, LibraryImportStatus, LibraryReport | None]:
    """The answer to file ``info``, the import's status and its report. Raises DownloadFailed and
    StorageError."""
    kind = library_kind(name, str(info.get("filetype") or ""))
    size = info.get("size")
    if kind is None:
        return views.wrong_kind(name), "refused", None
    if isinstance(size, int) and size > MAX_BYTES:
        return views.too_big(name, size), "refused", None
    try:
        data = download(client, str(info.get("url_private_download") or ""))
        items = read_library(data, kind)
    except TooBig as exc:
        return views.too_big(name, exc.size), "refused", None
    except NotALibrary as exc:
        return views.not_a_library(name, str(exc)), "refused", None
    report = import_library(rt.ctx, user_id, items)
    return views.imported(name, report), "done", report

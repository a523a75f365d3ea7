"""Reading a file shared with paperbot from Slack: the bot token goes only to Slack's hosts (or the Web
API's own), the download stops at its cap, and a refused or missing download is a DownloadFailed."""

import pytest
from slack_sdk import WebClient

from bot.slack.shared_files import DownloadFailed, TooBig, download, file_info, trusted
from stand_ins.slack import SlackStandIn

TOKEN = "xoxb-unit-token"


@pytest.fixture(scope="module")
def standin():
    with SlackStandIn() as s:
        s.download_tokens = {TOKEN}
        yield s


def test_the_token_goes_only_to_slacks_hosts_or_the_web_apis():
    api = "https://slack.com/api/"
    assert trusted("https://files.slack.com/files-pri/T1-F1/download/lib.bib", api)
    assert trusted("https://slack.com/x", api)
    assert not trusted("http://files.slack.com/files-pri/x", api)  # never in the clear
    assert not trusted("https://files.slack.com.evil.example/x", api)
    assert not trusted("https://evil.example/files.slack.com", api)
    assert trusted("http://127.0.0.1:8123/download/F1/x.bib", "http://127.0.0.1:8123/api/")
    assert not trusted("http://127.0.0.1:9999/download/F1/x.bib", "http://127.0.0.1:8123/api/")
    assert not trusted("", api)


def test_a_file_is_downloaded_with_the_token_up_to_its_cap(standin):
    client = WebClient(token=TOKEN, base_url=standin.base_url)
    shared = standin.share_file("U1", "lib.bib", b"@misc{a, title={A title}}")
    info = file_info(client, shared["id"])
    assert info["name"] == "lib.bib" and info["size"] == 25
    assert download(client, info["url_private_download"]) == b"@misc{a, title={A title}}"
    with pytest.raises(TooBig):
        download(client, info["url_private_download"], limit=10)
    with pytest.raises(DownloadFailed, match="403"):
        download(WebClient(token="xoxb-other", base_url=standin.base_url), info["url_private_download"])
    with pytest.raises(DownloadFailed, match="not Slack's"):
        download(client, "https://example.org/lib.bib")
    with pytest.raises(DownloadFailed, match="file_not_found"):
        file_info(client, "FNOPE")

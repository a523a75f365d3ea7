"""Encrypting what is stored about each Slack installation (its bot token, refresh token, user token).

The key comes from PAPERBOT_SECRET_KEY through HKDF-SHA256, so any long random string will do and the
stored text never depends on how the secret was written down. Fernet (AES-128-CBC with an HMAC-SHA256)
both hides the tokens and detects a wrong key or a changed row: :meth:`TokenBox.open` then raises
:class:`WrongSecretKey`, whose message is one line for the admin, never a traceback.
"""

from __future__ import annotations

import base64

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from bot.errors import ConfigError, PaperbotError

MIN_SECRET_KEY_LENGTH = 32
#: Fixed, so one secret key derives one encryption key on every host; the secret itself carries the entropy.
_SALT = b"paperbot installation store"
_INFO = b"paperbot: Slack installations, Fernet key v1"


class WrongSecretKey(PaperbotError):
    """Stored installation data can't be decrypted with this PAPERBOT_SECRET_KEY."""


def check_secret_key(secret_key: str | None) -> None:
    """Raise ConfigError (naming PAPERBOT_SECRET_KEY) unless it is set and long enough."""
    if not secret_key:
        raise ConfigError("PAPERBOT_SECRET_KEY is not set: OAuth needs it to encrypt the stored Slack tokens")
    if len(secret_key) < MIN_SECRET_KEY_LENGTH:
        raise ConfigError(f"PAPERBOT_SECRET_KEY must be at least {MIN_SECRET_KEY_LENGTH} characters "
                          f"(a random string; it has {len(secret_key)})")


class TokenBox:
    """Seals text (an installation's JSON) for storing, and opens what it sealed."""

    def __init__(self, secret_key: str):
        check_secret_key(secret_key)
        hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=_SALT, info=_INFO)
        self._fernet = Fernet(base64.urlsafe_b64encode(hkdf.derive(secret_key.encode("utf-8"))))

    def seal(self, text: str) -> str:
        """``text`` encrypted and authenticated, as URL-safe base64 text."""
        return self._fernet.encrypt(text.encode("utf-8")).decode("ascii")

    def open(self, sealed: str) -> str:
        """The text :meth:`seal` was given. Raises WrongSecretKey for another key's (or a changed) text."""
        try:
            return self._fernet.decrypt(sealed.encode("ascii")).decode("utf-8")
        except (InvalidToken, UnicodeError, ValueError):
            raise WrongSecretKey("PAPERBOT_SECRET_KEY can't decrypt the stored Slack installations: it is "
                                 "not the key they were saved with (set the old key back, or reinstall "
                                 "the app in each workspace)") from None

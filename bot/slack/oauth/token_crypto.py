"""Encrypting what is stored about each Slack installation (its bot token, refresh token, user token).

The key comes from PAPERBOT_SECRET_KEY through HKDF-SHA256, so any long random string will do and the
stored text never depends on how the secret was written down. Fernet (AES-128-CBC with an HMAC-SHA256)
both hides the tokens and detects a wrong key or a changed row: :meth:`TokenBox.open` then raises
:class:`WrongSecretKey`, whose message is one line for the admin, never a traceback.

The key can be changed: the earlier ones, in PAPERBOT_OLD_SECRET_KEYS, still open what they sealed
(cryptography's MultiFernet: seals with the current key, opens with any), and :meth:`TokenBox.reseal`
seals such a text again under the current key.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from bot.config import Settings, check_old_secret_keys, check_secret_key
from bot.errors import PaperbotError

#: Fixed, so one secret key derives one encryption key on every host; the secret itself carries the entropy.
_SALT = b"paperbot installation store"
_INFO = b"paperbot: Slack installations, Fernet key v1"


class WrongSecretKey(PaperbotError):
    """Stored installation data can't be decrypted with PAPERBOT_SECRET_KEY or any old key."""


def _fernet(secret_key: str) -> Fernet:
    hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=_SALT, info=_INFO)
    return Fernet(base64.urlsafe_b64encode(hkdf.derive(secret_key.encode("utf-8"))))


def _unopened() -> WrongSecretKey:
    return WrongSecretKey("neither PAPERBOT_SECRET_KEY nor any of PAPERBOT_OLD_SECRET_KEYS can decrypt "
                          "the stored Slack installation: it was saved with another key (add that key to "
                          "PAPERBOT_OLD_SECRET_KEYS, or install the app in that workspace again)")


class TokenBox:
    """Seals text (an installation's JSON) for storing under the current key, and opens what it or an
    earlier key (``old_keys``) sealed."""

    def __init__(self, secret_key: str, old_keys: Sequence[str] = ()):
        check_secret_key(secret_key)
        check_old_secret_keys(old_keys)
        self._current = _fernet(secret_key)
        earlier = [key for key in dict.fromkeys(old_keys) if key != secret_key]
        self._fernet = MultiFernet([self._current, *map(_fernet, earlier)])

    @classmethod
    def of(cls, settings: Settings) -> TokenBox:
        """The box of PAPERBOT_SECRET_KEY and PAPERBOT_OLD_SECRET_KEYS. Raises ConfigError naming one."""
        return cls(settings.secret_key or "", settings.old_secret_keys)

    def seal(self, text: str) -> str:
        """``text`` encrypted and authenticated under the current key, as URL-safe base64 text."""
        return self._fernet.encrypt(text.encode("utf-8")).decode("ascii")

    def open(self, sealed: str) -> str:
        """The text :meth:`seal` was given, under this key or an old one. Raises WrongSecretKey for
        another key's (or a changed) text."""
        try:
            return self._fernet.decrypt(sealed.encode("ascii")).decode("utf-8")
        except (InvalidToken, UnicodeError, ValueError):
            raise _unopened() from None

    def reseal(self, sealed: str) -> str | None:
        """``sealed`` sealed again under the current key when an old key sealed it; None when the current
        key did (there is nothing to do). Raises WrongSecretKey when no key opens it."""
        try:
            token = sealed.encode("ascii")
        except UnicodeError:
            raise _unopened() from None
        try:
            self._current.decrypt(token)
            return None
        except (InvalidToken, ValueError):
            pass
        try:
            return self._fernet.rotate(token).decode("ascii")
        except (InvalidToken, ValueError):
            raise _unopened() from None

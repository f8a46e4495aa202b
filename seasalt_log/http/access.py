"""Who is asking, and whether a browser may ask: credentials, the Host and Origin checks,
CORS and the per-client rate limit of the service (docs/HTTP.md "Readers and credentials",
"Browser safety").

Credentials are bearer tokens. The service token (``--token``) is the table's for every
game. Each game also has a table token and one token per seat, returned when the game
starts: each is an HMAC of the game id under the service's key, so nothing is stored (the
key comes from the service token, or is random for one run of a service without a token).
A request with no credential reads as a spectator. Every comparison is constant-time.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import secrets
import re
import time
from typing import Iterable

from ..view import SPECTATOR, TABLE, Viewer, seat_viewer

_BEARER = b"bearer "


def bearer(headers: Iterable[tuple[bytes, bytes]]) -> bytes | None:
    """The raw bytes of the bearer token in ``Authorization`` (any UTF-8), or None."""
    for name, value in headers:
        if name == b"authorization":
            if value[:7].lower() == _BEARER:
                return value[7:].strip()
            return b""
    return None


class Credentials:
    """The service token and the per-game tokens derived from the service's key."""

    def __init__(self, token: str | None):
        self.token = token.encode("utf-8") if token else None
        self.key = (hashlib.sha256(b"seasalt-game-tokens\0" + self.token).digest()
                    if self.token else secrets.token_bytes(32))

    def is_service(self, got: bytes | None) -> bool:
        """Whether ``got`` is the service token (constant-time)."""
        return (got is not None and self.token is not None
                and hmac.compare_digest(got, self.token))

    def game_token(self, game_id: str, who: str) -> str:
        """The token of ``who`` ("table" or "seat:N") for one game."""
        mac = hmac.new(self.key, f"{who}\0{game_id}".encode("utf-8"), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac).rstrip(b"=").decode("ascii")

    def for_game(self, game_id: str, players: int) -> dict:
        """What the table receives when a game starts: its token and one per seat."""
        return {"table_token": self.game_token(game_id, "table"),
                "seat_tokens": [self.game_token(game_id, f"seat:{s}") for s in range(players)]}

    def reader(self, got: bytes | None, game_id: str | None, players: int) -> Viewer | None:
        """The viewer a credential names for ``game_id`` (None: a credential that names
        nobody); no credential is a spectator."""
        if got is None:
            return SPECTATOR
        if self.is_service(got):
            return TABLE
        if game_id is None:
            return None
        found = None
        # every candidate is compared, so the time does not say which one matched
        for who in ["table"] + [f"seat:{s}" for s in range(players)]:
            if hmac.compare_digest(got, self.game_token(game_id, who).encode("ascii")):
                found = who
        if found is None:
            return None
        return TABLE if found == "table" else seat_viewer(int(found[5:]))


# ---------------------------------------------------------------- Host and Origin

def _host_name(value: str) -> str:
    """The host of a Host header or an Origin's authority, without the port, lower case."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else value
    if value.count(":") == 1:
        value = value.split(":", 1)[0]
    return value.rstrip(".")


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class HostCheck:
    """The Host names a request may carry: the address the service listens on (any IP
    literal when it listens on every address), ``localhost`` when on loopback, and the
    names given with ``--allowed-host``. Anything else is a DNS-rebinding attempt."""

    def __init__(self, listen: str, allowed: Iterable[str] = ()):
        listen = _host_name(listen)
        self.any_ip = listen in ("0.0.0.0", "::", "")
        self.names = {listen, *(_host_name(a) for a in allowed)}
        try:
            if ipaddress.ip_address(listen).is_loopback:
                self.names |= {"localhost", "127.0.0.1", "::1"}
        except ValueError:
            pass
        if listen == "localhost":
            self.names |= {"127.0.0.1", "::1"}

    def allows(self, host: str) -> bool:
        name = _host_name(host)
        return name in self.names or (self.any_ip and _is_ip(name))


def origin_host(origin: str) -> str | None:
    """The authority (host[:port]) of an Origin header, None for ``null`` or no scheme."""
    scheme, sep, rest = origin.strip().partition("://")
    if not sep or scheme.lower() not in ("http", "https"):
        return None
    return rest.split("/", 1)[0].lower()


# ---------------------------------------------------------------- rate limit

class RateLimit:
    """A token bucket per client address: ``rate`` requests a second, bursts of ``burst``."""

    def __init__(self, rate: float, burst: float | None = None, *, max_clients: int = 65536):
        self.rate, self.burst = rate, burst or max(rate, 1.0)
        self.max_clients = max_clients
        self.buckets: dict[str, tuple[float, float]] = {}

    def take(self, client: str) -> float:
        """0 when ``client`` may go on, else the seconds until it may."""
        now = time.monotonic()
        tokens, last = self.buckets.get(client, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        if tokens < 1.0:
            self.buckets[client] = (tokens, now)
            return (1.0 - tokens) / self.rate
        if len(self.buckets) >= self.max_clients and client not in self.buckets:
            self.buckets.clear()            # a flood of addresses: start afresh, stay small
        self.buckets[client] = (tokens - 1.0, now)
        return 0.0


#: an origin as a browser sends it: scheme://host[:port], lower case, nothing after
_ORIGIN = re.compile(r"([a-z][a-z0-9+.-]*)://(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::([0-9]{1,5}))?")
_DEFAULT_PORTS = {"http": "80", "https": "443"}


def _sent_as(origin: str) -> bool:
    found = _ORIGIN.fullmatch(origin)
    return found is not None and _DEFAULT_PORTS.get(found.group(1)) != found.group(3)


def origin_problem(origin: str) -> str | None:
    """What keeps ``origin`` (a ``--cors-origin``) from ever matching a browser's
    ``Origin`` header, which is compared with it as it is, or None (``*``: any origin)."""
    if origin == "*" or _sent_as(origin):
        return None
    scheme, _, rest = origin.rpartition("://") if "://" in origin else ("https", "", origin)
    host = rest.split("/", 1)[0].lower()
    port = host.rpartition(":")[2] if not host.endswith("]") else ""
    if port and port == _DEFAULT_PORTS.get(scheme.lower()):
        host = host[:-len(port) - 1]
    fixed = f"{scheme.lower()}://{host}"
    hint = (f"give {fixed}" if _sent_as(fixed) else "give one such as https://table.example")
    return (f"{origin!r} is not an origin as a browser sends it (scheme://host[:port] in "
            f"lower case, without a path or the scheme's default port): {hint}, or * for any")

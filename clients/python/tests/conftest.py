from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import respx

from mirror_client import MirrorClient

from .fake_mirror import BASE, FakeMirror


@pytest.fixture
def fake() -> Iterator[FakeMirror]:
    with respx.mock(assert_all_called=False) as router:
        yield FakeMirror(router)


@pytest.fixture
def client(fake: FakeMirror) -> Iterator[MirrorClient]:
    with MirrorClient(BASE, retries=2) as sut:
        yield sut


@pytest.fixture(scope="session")
def mirror_url() -> str:
    """The running Mirror the integration tests meet; selecting them without one is an error, not a skip."""
    url = os.environ.get("MIRROR_URL", "").strip()
    if not url:
        pytest.fail(
            "MIRROR_URL is unset: the integration tests need a running Mirror. Start one with "
            "`npx mirror up examples/clinic-network --json` and set MIRROR_URL to its api URL, or deselect them "
            "with -m 'not integration'.",
            pytrace=False,
        )
    return url

"""https through the pinned address: the connection goes to the checked IP, while TLS SNI, the certificate check and the
Host header still use the URL's name (a local CA and server; the name resolves through a fake resolver)."""

from __future__ import annotations

import datetime as dt
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest

from data.tools.http_request import HttpRequestTool
from domain.provider_ports import ToolContext
from tests.tools.fakes import FakeResolver
from tests.tools.http_server import RecordingServer, Route

x509 = pytest.importorskip("cryptography.x509")
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from cryptography.x509.oid import NameOID  # noqa: E402

CTX = ToolContext(session_id="s1", agent_id=None)


def _certificate(name: str, key: ec.EllipticCurvePrivateKey, issuer: x509.Name, signer: ec.EllipticCurvePrivateKey,
                 *, ca: bool, dns: str | None = None) -> x509.Certificate:
    now = dt.datetime.now(dt.UTC)
    builder = (
        x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
        .issuer_name(issuer).public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1)).not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if dns:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(dns)]), critical=False)
    return builder.sign(signer, hashes.SHA256())


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RecordingServer, ssl.SSLContext, list[str]]]:
    folder: Path = tmp_path_factory.mktemp("tls")
    ca_key, leaf_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Palimpsest test CA")])
    ca = _certificate("Palimpsest test CA", ca_key, ca_name, ca_key, ca=True)
    leaf = _certificate("pinned.test", leaf_key, ca_name, ca_key, ca=False, dns="pinned.test")
    (folder / "leaf.pem").write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    (folder / "key.pem").write_bytes(leaf_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(folder / "leaf.pem", folder / "key.pem")
    names: list[str] = []
    server_context.sni_callback = lambda sock, name, context: names.append(name)  # type: ignore[assignment,misc,func-returns-value]
    client_context = ssl.create_default_context(cadata=ca.public_bytes(serialization.Encoding.PEM).decode())
    routes = {"/page": Route(200, b"over tls", {"Content-Type": "text/plain"})}
    with RecordingServer(routes, ssl_context=server_context).running() as server:
        yield server, client_context, names


async def test_https_connects_to_the_checked_address_with_the_names_sni_and_host(
    tls: tuple[RecordingServer, ssl.SSLContext, list[str]],
) -> None:
    server, client_context, names = tls
    resolver = FakeResolver({"pinned.test": ["127.0.0.1"]})
    tool = HttpRequestTool(allowed_hosts=["pinned.test"], resolver=resolver, ssl_context=client_context)
    outcome = await tool.run({"url": f"https://pinned.test:{server.port}/page"}, CTX)
    assert not outcome.is_error, outcome.output
    assert outcome.output.endswith("over tls")
    assert names[-1] == "pinned.test"
    assert server.seen[-1].headers["host"] == f"pinned.test:{server.port}"
    assert resolver.lookups == ["pinned.test"]


async def test_the_certificate_is_checked_against_the_urls_name_not_the_address(
    tls: tuple[RecordingServer, ssl.SSLContext, list[str]],
) -> None:
    server, client_context, _ = tls
    resolver = FakeResolver({"impostor.test": ["127.0.0.1"]})
    tool = HttpRequestTool(allowed_hosts=["impostor.test"], resolver=resolver, ssl_context=client_context)
    outcome = await tool.run({"url": f"https://impostor.test:{server.port}/page"}, CTX)
    assert outcome.is_error and "not valid for 'impostor.test'" in outcome.output
    assert "over tls" not in outcome.output

"""The phones' server's certificate: self-signed, made at first use with `cryptography`, kept in the data folder.

A browser shows a one-time warning for it (the join page says what it means); it is made again when it has expired
or does not name the address the phones use. The key is readable by its owner only.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path

from voicemaster.phones import PhonesUnavailable

DAYS = 825
"""How long a certificate is made for: the longest browsers accept for one of their own choosing."""


@dataclass(frozen=True)
class Certificate:
    certificate: Path
    key: Path


def certificate_for(addresses: tuple[str, ...], folder: Path) -> Certificate:
    """A certificate naming `addresses` (IP addresses or host names) in `folder`, made if there is none that does."""
    made = Certificate(folder / "phones-certificate.pem", folder / "phones-key.pem")
    if _covers(made, addresses):
        return made
    try:
        _make(made, addresses)
    except OSError as error:
        raise PhonesUnavailable(f"cannot write the phones' certificate in {folder}: {error.strerror}") from None
    return made


def _covers(made: Certificate, addresses: tuple[str, ...]) -> bool:
    from cryptography import x509

    try:
        loaded = x509.load_pem_x509_certificate(made.certificate.read_bytes())
        names = loaded.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (OSError, ValueError, x509.ExtensionNotFound):
        return False
    if not made.key.is_file():
        return False
    named = {str(ip) for ip in names.get_values_for_type(x509.IPAddress)} | set(names.get_values_for_type(x509.DNSName))
    still = loaded.not_valid_after_utc > datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=1)
    return still and set(addresses) <= named


def _make(made: Certificate, addresses: tuple[str, ...]) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "voicemaster quiz")])
    now = datetime.datetime.now(datetime.UTC)
    alternatives: list[x509.GeneralName] = []
    for address in addresses:
        try:
            alternatives.append(x509.IPAddress(ipaddress.ip_address(address)))
        except ValueError:
            alternatives.append(x509.DNSName(address))
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=DAYS))
        .add_extension(x509.SubjectAlternativeName(alternatives), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    made.key.parent.mkdir(parents=True, exist_ok=True)
    secret = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    descriptor = os.open(made.key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as out:
        out.write(secret)
    made.certificate.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))

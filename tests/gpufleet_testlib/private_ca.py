"""A private CA that a test makes, as an on-prem mirror has one: the CA, a server certificate for 127.0.0.1 and
localhost, and a client certificate, as PEM files in a directory (cryptography, which ansible-core needs), with
the extensions a strict verifier (Python 3.13's default) asks for."""

import datetime
import ipaddress
import os
import ssl

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


def _name(common):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _write(path, *objects):
    with open(path, "wb") as handle:
        for obj in objects:
            if isinstance(obj, x509.Certificate):
                handle.write(obj.public_bytes(serialization.Encoding.PEM))
            else:
                handle.write(obj.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
    return path


class PrivateCA:
    """ca.pem, server.pem + server-key.pem (127.0.0.1, localhost), client.pem + client-key.pem in directory."""

    def __init__(self, directory):
        self.directory = directory
        now = datetime.datetime.now(datetime.timezone.utc)
        self._key = ec.generate_private_key(ec.SECP256R1())
        self._ca = (x509.CertificateBuilder().subject_name(_name("gpufleet test CA")).issuer_name(_name("gpufleet test CA"))
                    .public_key(self._key.public_key()).serial_number(x509.random_serial_number())
                    .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
                    .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                    .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                                 data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                                 crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
                    .add_extension(x509.SubjectKeyIdentifier.from_public_key(self._key.public_key()), critical=False)
                    .sign(self._key, hashes.SHA256()))
        self.ca = _write(os.path.join(directory, "ca.pem"), self._ca)
        self.server, self.server_key = self._leaf("127.0.0.1", "server", ExtendedKeyUsageOID.SERVER_AUTH, now)
        self.client, self.client_key = self._leaf("gpufleet client", "client", ExtendedKeyUsageOID.CLIENT_AUTH, now)

    def _leaf(self, common, name, usage, now):
        key = ec.generate_private_key(ec.SECP256R1())
        builder = (x509.CertificateBuilder().subject_name(_name(common)).issuer_name(self._ca.subject)
                   .public_key(key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
                   .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
                   .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(self._key.public_key()),
                                  critical=False)
                   .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False))
        if usage == ExtendedKeyUsageOID.SERVER_AUTH:
            builder = builder.add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]), critical=False)
        cert = builder.sign(self._key, hashes.SHA256())
        return (_write(os.path.join(self.directory, name + ".pem"), cert),
                _write(os.path.join(self.directory, name + "-key.pem"), key))

    def server_context(self, require_client=False):
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.server, self.server_key)
        if require_client:
            context.load_verify_locations(self.ca)
            context.verify_mode = ssl.CERT_REQUIRED
        return context

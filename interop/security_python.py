#!/usr/bin/env python3
"""python-ndn side of the ndnlab security interop test
(crates/ndnlab-security/tests/interop_python.rs).

  security_python.py sign DIR    python-ndn generates one key per signature type,
                                 signs a Data and a signed Interest with each and
                                 writes <type>.data, <type>.interest, <type>.cert
                                 (self-signed certificate v2) or <type>.key (HMAC
                                 secret) into DIR; prints a JSON manifest.
  security_python.py verify DIR  python-ndn verifies what ndnlab wrote into DIR:
                                 <type>.data, <type>.interest, their one-bit-flipped
                                 <type>.data.bad / <type>.interest.bad, with the key
                                 from <type>.cert (parsed with python-ndn's
                                 parse_certificate) or <type>.key; prints JSON.
"""
import asyncio
import json
import os
import sys

from Cryptodome.PublicKey import ECC, RSA
from ndn.app_support.security_v2 import parse_certificate, self_sign
from ndn.encoding import (InterestParam, MetaInfo, Name, make_data, make_interest,
                          parse_data, parse_interest)
from ndn.security.signer.ed25519_signer import Ed25519Signer
from ndn.security.signer.sha256_digest_signer import DigestSha256Signer
from ndn.security.signer.sha256_ecdsa_signer import Sha256WithEcdsaSigner
from ndn.security.signer.sha256_hmac_signer import HmacSha256Signer
from ndn.security.signer.sha256_rsa_signer import Sha256WithRsaSigner
from ndn.security.validator.digest_validator import params_sha256_checker, sha256_digest_checker
from ndn.security.validator.known_key_validator import (EccChecker, Ed25519Checker, HmacChecker,
                                                        RsaChecker)

TYPES = ["digest", "rsa-1024", "rsa-2048", "ecdsa-p256", "ecdsa-p384", "ed25519", "hmac"]
CHECKERS = {"rsa-1024": RsaChecker, "rsa-2048": RsaChecker, "rsa-3072": RsaChecker,
            "rsa-4096": RsaChecker, "ecdsa-p256": EccChecker, "ecdsa-p384": EccChecker,
            "ed25519": Ed25519Checker}
HMAC_SECRET = bytes(range(32))


class InterestFields:
    """Wraps a signer to add SignatureNonce/Time/SeqNum (signed Interest v0.3)."""

    def __init__(self, inner):
        self.inner = inner

    def write_signature_info(self, signature_info):
        self.inner.write_signature_info(signature_info)
        signature_info.signature_nonce = 0x0102030405060708
        signature_info.signature_time = 1_700_000_000_000
        signature_info.signature_seq_num = 42

    def get_signature_value_size(self):
        return self.inner.get_signature_value_size()

    def write_signature_value(self, wire, contents):
        return self.inner.write_signature_value(wire, contents)


def make_key(t):
    """(signer, public key SPKI DER or None)"""
    key_name = f"/py/{t}/KEY/k1"
    if t == "digest":
        return DigestSha256Signer(), None
    if t == "hmac":
        return HmacSha256Signer(key_name, HMAC_SECRET), None
    if t.startswith("rsa-"):
        k = RSA.generate(int(t[4:]))
        return Sha256WithRsaSigner(key_name, k.export_key(format="DER", pkcs=8)), \
            k.public_key().export_key(format="DER")
    curve = {"ecdsa-p256": "P-256", "ecdsa-p384": "P-384", "ed25519": "ed25519"}[t]
    k = ECC.generate(curve=curve)
    der = k.export_key(format="DER")
    signer = Ed25519Signer(key_name, der) if t == "ed25519" else Sha256WithEcdsaSigner(key_name, der)
    return signer, k.public_key().export_key(format="DER")


def cmd_sign(out):
    manifest = {}
    for t in TYPES:
        signer, spki = make_key(t)
        data = make_data(f"/py/{t}/data", MetaInfo(freshness_period=1000),
                         f"hello from python-ndn {t}".encode(), signer=signer)
        interest = make_interest(f"/py/{t}/cmd", InterestParam(), app_param=b"params",
                                 signer=InterestFields(signer))
        with open(os.path.join(out, f"{t}.data"), "wb") as f:
            f.write(bytes(data))
        with open(os.path.join(out, f"{t}.interest"), "wb") as f:
            f.write(bytes(interest))
        entry = {"key_name": f"/py/{t}/KEY/k1"}
        if spki is not None:
            cert_name, cert = self_sign(f"/py/{t}/KEY/k1", spki, signer)
            with open(os.path.join(out, f"{t}.cert"), "wb") as f:
                f.write(bytes(cert))
            entry["cert_name"] = Name.to_str(cert_name)
        if t == "hmac":
            with open(os.path.join(out, f"{t}.key"), "wb") as f:
                f.write(HMAC_SECRET)
        manifest[t] = entry
    print(json.dumps(manifest))


def checker_for(t, d, key_name):
    if t == "digest":
        return sha256_digest_checker, None
    if t == "hmac":
        with open(os.path.join(d, "hmac.key"), "rb") as f:
            return HmacChecker.from_key(key_name, f.read()), None
    with open(os.path.join(d, f"{t}.cert"), "rb") as f:
        cert_wire = f.read()
    cert = parse_certificate(cert_wire)
    vp = cert.signature_info.validity_period
    info = {
        "name": Name.to_str(cert.name),
        "content_type": cert.meta_info.content_type,
        "not_before": bytes(vp.not_before).decode(),
        "not_after": bytes(vp.not_after).decode(),
        "key_locator": Name.to_str(cert.signature_info.key_locator.name),
    }
    checker = CHECKERS[t].from_cert(cert_wire)
    # the certificate's own (self-)signature, checked with its own key
    name, _, _, sig = parse_data(cert_wire)
    info["self_signature_ok"] = asyncio.run(checker(name, sig))
    return checker, info


async def check_data(checker, wire):
    try:
        name, _, _, sig = parse_data(wire)
    except Exception:  # a packet python-ndn cannot parse is rejected
        return False
    return await checker(name, sig)


async def check_interest(checker, wire):
    try:
        name, _, _, sig = parse_interest(wire)
    except Exception:
        return False
    return await params_sha256_checker(name, sig) and await checker(name, sig)


def cmd_verify(d):
    with open(os.path.join(d, "manifest.json")) as f:
        manifest = json.load(f)
    result = {}
    for t, entry in manifest.items():
        checker, cert_info = checker_for(t, d, entry.get("key_name"))
        r = {"cert": cert_info}
        for kind, fn in (("data", check_data), ("interest", check_interest)):
            for suffix in ("", ".bad"):
                with open(os.path.join(d, f"{t}.{kind}{suffix}"), "rb") as f:
                    r[kind + suffix.replace(".", "_")] = asyncio.run(fn(checker, f.read()))
        result[t] = r
    print(json.dumps(result))


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("sign", "verify"):
        sys.exit(__doc__)
    {"sign": cmd_sign, "verify": cmd_verify}[sys.argv[1]](sys.argv[2])

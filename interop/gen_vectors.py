#!/usr/bin/env python3
"""Generate NDN packet test vectors with python-ndn (a codec we did not write).

Every packet is built with python-ndn's encoders and signers, then parsed back
with python-ndn's decoders; the "expect" object records every field as python-ndn
sees it (see decode_check.py for the exact shape). The output is deterministic:
a fixed seed drives every name, nonce, payload and key, and the few sources of
randomness inside python-ndn (signed-Interest timestamps and nonces, certificate
versions, ECDSA's per-signature k) are pinned (ECDSA uses RFC 6979 deterministic k).

    gen_vectors.py            write crates/ndnlab-wire/tests/vectors/python_ndn.json
    gen_vectors.py --stdout   print the same JSON (used by the live Rust test)
"""

import argparse
import datetime
import itertools
import json
import os
import random
import sys

import ndn.app_support.security_v2 as security_v2
import ndn.security.signer.sha256_digest_signer as digest_signer_mod
from Cryptodome.Hash import SHA256
from Cryptodome.PublicKey import ECC, RSA
from Cryptodome.Signature import DSS
from ndn.encoding import (Component, ContentType, InterestParam, KeyLocator, MetaInfo, Name,
                          make_data, make_interest)
from ndn.encoding.ndnlp_v2 import (CachePolicy, LpPacket, LpPacketValue, NackReason, NetworkNack,
                                   make_network_nack)
from ndn.security.signer import (DigestSha256Signer, Ed25519Signer, HmacSha256Signer,
                                 NullSigner, Sha256WithEcdsaSigner, Sha256WithRsaSigner)

from decode_check import describe

SEED = 0x6E646E6C  # "ndnl"
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crates", "ndnlab-wire",
                   "tests", "vectors", "python_ndn.json")


class DeterministicEcdsaSigner(Sha256WithEcdsaSigner):
    """python-ndn's ECDSA signer with RFC 6979 nonces instead of random ones (same wire format)."""

    def write_signature_value(self, wire, contents) -> int:
        h = SHA256.new(b"".join(bytes(c) for c in contents))
        signature = DSS.new(self.key, "deterministic-rfc6979", "der").sign(h)
        wire[:len(signature)] = signature
        return len(signature)


class KeyDigestHmacSigner(HmacSha256Signer):
    """HMAC signer whose KeyLocator is a KeyDigest rather than a Name."""

    def __init__(self, key_bytes: bytes, digest: bytes):
        super().__init__("/unused", key_bytes)
        self.digest = digest

    def write_signature_info(self, signature_info):
        super().write_signature_info(signature_info)
        signature_info.key_locator = KeyLocator()
        signature_info.key_locator.key_digest = self.digest


class SeqNumDigestSigner(DigestSha256Signer):
    """DigestSha256 with SignatureSeqNum (and optionally SignatureTime/SignatureNonce)."""

    def __init__(self, seq: int, time: int | None = None, nonce: int | None = None):
        super().__init__(False)
        self.seq, self.time, self.nonce = seq, time, nonce

    def write_signature_info(self, signature_info):
        super().write_signature_info(signature_info)
        signature_info.signature_seq_num = self.seq
        signature_info.signature_time = self.time
        signature_info.signature_nonce = self.nonce


class Generator:
    def __init__(self):
        self.rng = random.Random(SEED)
        self.vectors = []
        # Pin python-ndn's own randomness: signed-Interest time/nonce, certificate versions.
        clock = itertools.count(1_700_000_000_000, 1_000)
        digest_signer_mod.timestamp = lambda: next(clock)
        digest_signer_mod.gen_nonce_64 = lambda: self.rng.getrandbits(64) | (1 << 63)
        security_v2.timestamp = lambda: next(clock)
        self.keys = {}
        self.signers = self.make_signers()

    # ---- helpers -------------------------------------------------------------------------

    def randbytes(self, n: int) -> bytes:
        return self.rng.randbytes(n)

    def nonce(self) -> int:
        return self.rng.getrandbits(32)

    def add(self, desc: str, wire, kind_override: str | None = None):
        wire = bytes(wire)
        kind, expect = describe(wire)
        self.vectors.append({"desc": desc, "kind": kind_override or kind, "hex": wire.hex(),
                             "expect": expect})

    def add_invalid(self, desc: str, wire, reason: str):
        self.vectors.append({"desc": desc, "kind": "invalid", "hex": bytes(wire).hex(),
                             "expect": {"reason": reason}})

    def make_signers(self) -> dict:
        # Keys come from their own seeded stream, so that how many random bytes a
        # pycryptodomex version consumes for key generation changes only the
        # key-signed vectors, never the names, nonces and payloads of the others.
        r = random.Random(SEED + 1).randbytes
        rsa = RSA.generate(2048, randfunc=r)
        ec = ECC.generate(curve="P-256", randfunc=r)
        ed = ECC.generate(curve="ed25519", randfunc=r)
        hmac_key = r(32)
        self.keys = {
            "rsa": {"public_der": rsa.public_key().export_key("DER").hex(),
                    "private_der": rsa.export_key("DER").hex()},
            "ecdsa_p256": {"public_der": ec.public_key().export_key(format="DER").hex(),
                           "private_der": ec.export_key(format="DER").hex()},
            "ed25519": {"public_der": ed.public_key().export_key(format="DER").hex(),
                        "private_der": ed.export_key(format="DER").hex()},
            "hmac": {"key": hmac_key.hex()},
        }
        return {
            "DigestSha256": DigestSha256Signer(),
            "HMAC-SHA256": HmacSha256Signer("/lab/hmac/KEY/%01", hmac_key),
            "ECDSA-P256": DeterministicEcdsaSigner("/lab/ecdsa/KEY/%02",
                                                   ec.export_key(format="DER")),
            "RSA-2048": Sha256WithRsaSigner("/lab/rsa/KEY/%03/self/v=1",
                                            rsa.export_key("DER")),
            "Ed25519": Ed25519Signer("/lab/ed25519/KEY/%04", ed.export_key(format="DER")),
        }

    # ---- names ---------------------------------------------------------------------------

    def names(self) -> list[tuple[str, list]]:
        """(description, name) pairs covering every component type and URI corner."""
        g = Component.from_str
        b = Component.from_bytes
        out = [
            ("one generic component", [g("a")]),
            ("three generic components", Name.from_str("/ndn/edu/ucla")),
            ("unreserved punctuation", [g("a-b.c_d~e")]),
            ("bytes needing percent-encoding", [b(b"\x00\x01\x7f\x80\xfe\xff")]),
            ("space, slash, percent, equals, question mark",
             [g("x"), b(b"a b/c%d=e?f")]),
            ("UTF-8 text", [b("Kraus Bölter Σπυρίδων".encode())]),
            ("empty generic component", [g("a"), b(b""), g("b")]),
            ("trailing empty generic component", [g("a"), b(b"")]),
            ("components of only periods", [b(b"."), b(b".."), b(b"..."), b(b"....")]),
            ("component with periods and letters", [b(b".a."), b(b"a..")]),
            ("long component (300 bytes, 3-byte TLV-LENGTH)", [g("big"), b(bytes(range(256)) +
                                                                            bytes(44))]),
            ("keyword component", [g("app"), b(b"metadata", Component.TYPE_KEYWORD)]),
            ("segment numbers of every NNI width",
             [g("s"), Component.from_segment(0), Component.from_segment(255),
              Component.from_segment(256), Component.from_segment(65536),
              Component.from_segment(2**32), Component.from_segment(2**64 - 1)]),
            ("byte offset", [g("file"), Component.from_byte_offset(8800)]),
            ("version", [g("doc"), Component.from_version(1_700_000_000_123)]),
            ("version zero", [g("doc"), Component.from_version(0)]),
            ("timestamp (microseconds)", [g("t"), Component.from_timestamp(1_700_000_000_123_456)]),
            ("sequence number", [g("chat"), Component.from_sequence_num(42)]),
            ("versioned segmented name",
             [g("video"), g("frame"), Component.from_version(7), Component.from_segment(3)]),
            ("other component type 3", [g("o"), b(b"\x01\x02", 3)]),
            ("other component type 9", [g("o"), b(b"nine", 9)]),
            ("other component type 100", [g("o"), b(b"hundred", 100)]),
            ("other component type 252 (last 1-byte TLV-TYPE)", [g("o"), b(b"x", 252)]),
            ("other component type 253 (first 3-byte TLV-TYPE)", [g("o"), b(b"y", 253)]),
            ("other component type 1000", [g("o"), b(b"\xff", 1000)]),
            ("other component type 65535 (largest)", [g("o"), b(b"z", 65535)]),
            ("other typed component with empty value", [g("o"), b(b"", 200)]),
            ("generic component with '=' inside", [b(b"k=v"), b(b"seg=1")]),
            ("mixed typed components",
             [b(b"ndn"), b(b"kw", 32), Component.from_sequence_num(1), Component.from_version(2),
              Component.from_timestamp(3), Component.from_byte_offset(4),
              Component.from_segment(5), b(b"\xaa", 0x80)]),
        ]
        # 16- and 32-component names, as forwarders see them in tables.
        out.append(("16 components", [g(f"c{i}") for i in range(16)]))
        out.append(("32 random binary components",
                    [b(self.randbytes(self.rng.randrange(0, 12))) for _ in range(32)]))
        return out

    # ---- Interests -----------------------------------------------------------------------

    def interests(self):
        for desc, name in self.names():
            self.add(f"Interest, name: {desc}",
                     make_interest(name, InterestParam(nonce=self.nonce(), lifetime=None)))
        digest = self.randbytes(32)
        self.add("Interest, name ends with an implicit SHA-256 digest",
                 make_interest(Name.from_str("/data/x") +
                               [Component.from_bytes(digest, Component.TYPE_IMPLICIT_SHA256)],
                               InterestParam(nonce=self.nonce())))

        # Every combination of the seven optional fields.
        lifetimes = [0, 1, 255, 256, 4000, 10_000, 65535, 65536, 2**32 - 1, 2**32]
        hops = [0, 1, 64, 255]
        hints = [["/isp"], ["/isp/a", "/isp/b/seg=1"], ["/h1", "/h2", "/h3"]]
        params = [b"", b"p", self.randbytes(40), self.randbytes(300)]
        bases = ["/fields/a", "/fields/b/c", "/fields/v=3/seg=9"]
        for i, combo in enumerate(itertools.product([False, True], repeat=7)):
            cbp, mbf, fh, has_nonce, has_life, has_hop, has_ap = combo
            p = InterestParam(can_be_prefix=cbp, must_be_fresh=mbf,
                              nonce=self.nonce() if has_nonce else None,
                              lifetime=lifetimes[i % len(lifetimes)] if has_life else None,
                              hop_limit=hops[i % len(hops)] if has_hop else None,
                              forwarding_hint=hints[i % len(hints)] if fh else [])
            ap = params[i % len(params)] if has_ap else None
            fields = [n for n, on in zip(["CanBePrefix", "MustBeFresh", "ForwardingHint", "Nonce",
                                          "Lifetime", "HopLimit", "AppParams"], combo) if on]
            self.add(f"Interest #{i} with {'+'.join(fields) or 'no optional field'}",
                     make_interest(f"{bases[i % len(bases)]}/{i}", p, ap))

        self.add("Interest with 9000-byte ApplicationParameters",
                 make_interest("/big/params", InterestParam(nonce=self.nonce()),
                               self.randbytes(9000)))
        self.add("Interest with ParametersSha256Digest in the middle of the name",
                 make_interest([Component.from_str("mid"),
                                Component.from_bytes(bytes(32), Component.TYPE_PARAMETERS_SHA256),
                                Component.from_str("tail")],
                               InterestParam(nonce=self.nonce()), b"middle"))
        self.add("Interest with default python-ndn parameters (lifetime 4000 written)",
                 make_interest("/defaults", InterestParam()))

        # Signed Interests (v0.3): every signer, with and without ApplicationParameters.
        for sname, signer in self.signers.items():
            if sname == "DigestSha256":
                signer = DigestSha256Signer(for_interest=True)
            self.add(f"signed Interest ({sname}), no ApplicationParameters given",
                     make_interest(f"/signed/{sname}/cmd", InterestParam(nonce=self.nonce()),
                                   signer=signer))
            self.add(f"signed Interest ({sname}) with ApplicationParameters and hints",
                     make_interest(f"/signed/{sname}/params",
                                   InterestParam(can_be_prefix=True, must_be_fresh=True,
                                                 nonce=self.nonce(), lifetime=1000, hop_limit=8,
                                                 forwarding_hint=["/via"]),
                                   self.randbytes(24), signer=signer))
        self.add("signed Interest with SignatureSeqNum, SignatureTime and SignatureNonce",
                 make_interest("/signed/seq", InterestParam(nonce=self.nonce()), b"x",
                               signer=SeqNumDigestSigner(77, 1_700_000_000_000,
                                                         self.rng.getrandbits(64))))
        self.add("signed Interest with a KeyDigest KeyLocator",
                 make_interest("/signed/keydigest", InterestParam(nonce=self.nonce()), b"y",
                               signer=KeyDigestHmacSigner(bytes.fromhex(self.keys["hmac"]["key"]),
                                                          self.randbytes(32))))

    # ---- Data ----------------------------------------------------------------------------

    def data(self):
        digest = DigestSha256Signer()
        for desc, name in self.names():
            self.add(f"Data, name: {desc}",
                     make_data(name, MetaInfo(), self.randbytes(self.rng.randrange(0, 64)),
                               digest))
        for sname, signer in self.signers.items():
            self.add(f"Data signed with {sname}",
                     make_data(f"/sig/{sname}", MetaInfo(freshness_period=1000),
                               b"hello " + sname.encode(), signer))
            self.add(f"Data signed with {sname}, no MetaInfo, empty Content",
                     make_data(f"/sig/{sname}/empty", None, b"", signer))
        self.add("Data with python-ndn's NullSigner (SignatureType 200, empty SignatureValue)",
                 make_data("/sig/null", MetaInfo(), b"null", NullSigner()))
        self.add("Data with a KeyDigest KeyLocator",
                 make_data("/sig/keydigest", MetaInfo(), b"kd",
                           KeyDigestHmacSigner(bytes.fromhex(self.keys["hmac"]["key"]),
                                               self.randbytes(32))))
        self.add("Data with SignatureSeqNum/Time/Nonce",
                 make_data("/sig/seq", MetaInfo(), b"s",
                           SeqNumDigestSigner(2**40, 1_700_000_000_000, 2**63 + 5)))

        # MetaInfo variations.
        fbids = [None, Component.from_segment(0), Component.from_segment(99),
                 Component.from_str("last"), Component.from_bytes(b"\x00", 0x80)]
        for i, (ct, fp) in enumerate(itertools.product(
                [None, ContentType.BLOB, ContentType.LINK, ContentType.KEY, ContentType.NACK, 5,
                 1024], [None, 0, 1, 1000, 2**32])):
            meta = MetaInfo(content_type=ct, freshness_period=fp,
                            final_block_id=fbids[i % len(fbids)])
            self.add(f"Data MetaInfo ContentType={ct} FreshnessPeriod={fp} "
                     f"FinalBlockId={'none' if meta.final_block_id is None else 'set'}",
                     make_data(f"/meta/{i}/seg=0", meta, b"m", digest))
        self.add("Data with MetaInfo present but empty",
                 make_data("/meta/empty", MetaInfo(content_type=None), b"e", digest))
        self.add("Data with no Content element", make_data("/no/content", MetaInfo(), None,
                                                          digest))

        # Contents of every size class.
        for size in [1, 252, 253, 300, 1500, 8192, 8800, 65536]:
            for sname in ["DigestSha256", "Ed25519"] if size in (8192, 65536) else ["DigestSha256"]:
                self.add(f"Data with {size}-byte content ({sname})",
                         make_data(f"/content/{size}/{sname}", MetaInfo(freshness_period=4000),
                                   self.randbytes(size), self.signers[sname]))

        # Certificates v2 (ContentType KEY, ValidityPeriod) as python-ndn makes them.
        start = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
        for sname, pub in [("RSA-2048", "rsa"), ("ECDSA-P256", "ecdsa_p256"),
                           ("Ed25519", "ed25519")]:
            _, wire = security_v2.derive_cert(
                f"/lab/{pub}/KEY/%01", "issuer", bytes.fromhex(self.keys[pub]["public_der"]),
                self.signers[sname], start, 365 * 24 * 3600)
            self.add(f"certificate v2 signed with {sname} (ValidityPeriod)", wire)

    # ---- NDNLPv2 -------------------------------------------------------------------------

    def lp(self):
        interest = make_interest("/lp/i", InterestParam(nonce=self.nonce(), lifetime=2000))
        data = make_data("/lp/d", MetaInfo(freshness_period=1), b"lp", DigestSha256Signer())
        for reason in [NackReason.NONE, NackReason.CONGESTION, NackReason.DUPLICATE,
                       NackReason.NO_ROUTE, 42]:
            self.add(f"network Nack, reason {reason}", make_network_nack(interest, reason))
        self.add("network Nack without NackReason", make_network_nack(interest, None))

        def lp_packet(**fields):
            pkt = LpPacket()
            pkt.lp_packet = LpPacketValue()
            for k, v in fields.items():
                setattr(pkt.lp_packet, k, v)
            return pkt.encode()

        def cache_policy(t):
            cp = CachePolicy()
            cp.cache_policy_type = t
            return cp

        nack = NetworkNack()
        nack.nack_reason = NackReason.NO_ROUTE
        cases = [
            ("LpPacket with only a Fragment (Interest)", dict(fragment=interest)),
            ("LpPacket with only a Fragment (Data)", dict(fragment=data)),
            ("LpPacket PitToken (1 byte) + Interest", dict(pit_token=b"\x07", fragment=interest)),
            ("LpPacket PitToken (8 bytes) + Data", dict(pit_token=self.randbytes(8),
                                                        fragment=data)),
            ("LpPacket PitToken (32 bytes) + Interest", dict(pit_token=self.randbytes(32),
                                                             fragment=interest)),
            ("LpPacket IncomingFaceId + Data", dict(incoming_face_id=300, fragment=data)),
            ("LpPacket NextHopFaceId + Interest", dict(next_hop_face_id=2**32,
                                                       fragment=interest)),
            ("LpPacket CachePolicy NoCache + Data", dict(cache_policy=cache_policy(1),
                                                         fragment=data)),
            ("LpPacket CongestionMark + Data", dict(congestion_mark=1, fragment=data)),
            ("LpPacket TxSequence + Interest", dict(tx_sequence=(2**40 + 3).to_bytes(8, "big"),
                                                    fragment=interest)),
            ("LpPacket Ack only (idle)", dict(ack=(12345).to_bytes(8, "big"))),
            ("LpPacket NonDiscovery + Interest", dict(non_discovery=True, fragment=interest)),
            ("LpPacket PrefixAnnouncement + Data", dict(prefix_announcement=data,
                                                        fragment=data)),
            ("LpPacket FragIndex/FragCount 0/1 + Interest", dict(frag_index=0, frag_count=1,
                                                                 fragment=interest)),
            ("LpPacket FragIndex/FragCount 1/3 with a partial fragment",
             dict(frag_index=1, frag_count=3, fragment=data[10:30])),
            ("LpPacket with PitToken, Nack, IncomingFaceId, CongestionMark, NonDiscovery",
             dict(pit_token=b"\xaa\xbb\xcc\xdd", nack=nack, incoming_face_id=7,
                  congestion_mark=3, non_discovery=True, fragment=interest)),
            ("LpPacket with no field at all (empty)", dict()),
        ]
        for desc, fields in cases:
            self.add(desc, lp_packet(**fields))

    def invalid(self):
        self.add_invalid("Data without SignatureInfo (python-ndn encodes it when no signer)",
                         make_data("/unsigned", MetaInfo(), b"u", None), "missing SignatureInfo")
        wire = bytearray(make_interest("/bad/digest", InterestParam(nonce=1), b"params"))
        wire[-1] ^= 0xFF  # corrupt ApplicationParameters: the name's digest no longer matches
        self.add_invalid("Interest whose ApplicationParameters do not match its "
                         "ParametersSha256DigestComponent", wire, "params digest mismatch")

    def run(self) -> dict:
        self.interests()
        self.data()
        self.lp()
        self.invalid()
        import importlib.metadata as md
        return {
            "generator": "interop/gen_vectors.py",
            "python_ndn": md.version("python-ndn"),
            "pycryptodomex": md.version("pycryptodomex"),
            "seed": SEED,
            "note": "expect = fields as python-ndn decodes them; payloads over 1024 bytes are "
                    "given as *_len + *_sha256; keys are the ones the signers used",
            "keys": self.keys,
            "vectors": self.vectors,
        }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stdout", action="store_true", help="print the JSON instead of writing it")
    ap.add_argument("--out", default=OUT, help="output file (default: %(default)s)")
    args = ap.parse_args()
    doc = Generator().run()
    text = json.dumps(doc, indent=1) + "\n"
    if args.stdout:
        sys.stdout.write(text)
    else:
        os.makedirs(os.path.dirname(args.out), exist_ok=True)
        with open(args.out, "w") as f:
            f.write(text)
        print(f"wrote {len(doc['vectors'])} vectors to {os.path.normpath(args.out)}",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Decode NDN packets with python-ndn and print the fields it sees, as JSON.

This is the reverse direction of the interop proof: ndnlab encodes packets, this
script decodes them with python-ndn (a codec we did not write) and reports every
field, and `crates/ndnlab-wire/tests/interop_python.rs` compares the report with
what ndnlab put in.

Input (stdin or a file argument): either one hex-encoded packet per line (blank
lines and lines starting with '#' are skipped), or a JSON list of hex strings.
Output (stdout): a JSON list with one object per input packet, in order:
    {"kind": "interest"|"data"|"nack"|"lp", "expect": {...}}  or  {"error": "..."}
The "expect" objects have exactly the shape of the "expect" objects in the
committed vectors (crates/ndnlab-wire/tests/vectors/python_ndn.json), because
gen_vectors.py builds them with the functions below.
"""

import argparse
import hashlib
import json
import sys

from ndn.app_support.security_v2 import parse_certificate
from ndn.encoding import Component, Name, parse_data, parse_interest
from ndn.encoding.ndnlp_v2 import LpPacketValue, LpTypeNumber
from ndn.encoding.tlv_var import parse_and_check_tl, parse_tl_num

# Payloads larger than this are described by length and SHA-256 instead of hex.
INLINE_LIMIT = 1024

INTEREST, DATA, LP_PACKET = 0x05, 0x06, LpTypeNumber.LP_PACKET


def sha256_hex(data) -> str:
    return hashlib.sha256(bytes(data)).hexdigest()


def describe_bytes(data, prefix: str) -> dict:
    """`{prefix: hex}` for small values, `{prefix: None, prefix_len, prefix_sha256}` for large."""
    if data is None:
        return {prefix: None}
    data = bytes(data)
    if len(data) <= INLINE_LIMIT:
        return {prefix: data.hex(), f"{prefix}_len": len(data)}
    return {prefix: None, f"{prefix}_len": len(data), f"{prefix}_sha256": sha256_hex(data)}


def describe_component(comp) -> dict:
    return {
        "type": Component.get_type(comp),
        "hex": bytes(Component.get_value(comp)).hex(),
        "uri": Component.to_str(comp),
    }


def describe_name(name) -> dict:
    return {
        "uri": Name.to_str(name),
        "tlv": Name.to_bytes(name).hex(),
        "components": [describe_component(c) for c in name],
    }


def describe_signature(info, value_buf, covered_parts) -> dict | None:
    if info is None:
        return None
    kl = None
    if info.key_locator is not None:
        if info.key_locator.name is not None:
            kl = {"name": describe_name(info.key_locator.name)}
        elif info.key_locator.key_digest is not None:
            kl = {"digest": bytes(info.key_locator.key_digest).hex()}
        else:
            kl = {}
    covered = b"".join(bytes(p) for p in covered_parts or [])
    return {
        "type": info.signature_type,
        "key_locator": kl,
        "nonce": info.signature_nonce,
        "time": info.signature_time,
        "seq_num": info.signature_seq_num,
        "value": None if value_buf is None else bytes(value_buf).hex(),
        "signed_portion_len": len(covered),
        "signed_portion_sha256": sha256_hex(covered),
    }


def describe_interest(wire) -> dict:
    name, param, app_param, sig = parse_interest(wire)
    expect = {
        "name": describe_name(name),
        "can_be_prefix": bool(param.can_be_prefix),
        "must_be_fresh": bool(param.must_be_fresh),
        "forwarding_hint": [describe_name(n) for n in param.forwarding_hint],
        "nonce": param.nonce,
        "lifetime": param.lifetime,
        "hop_limit": param.hop_limit,
    }
    expect.update(describe_bytes(app_param, "app_params"))
    digest_ok = None
    if sig.digest_value_buf is not None:
        h = hashlib.sha256()
        for part in sig.digest_covered_part:
            h.update(bytes(part))
        digest_ok = h.digest() == bytes(sig.digest_value_buf)
    expect["params_digest_ok"] = digest_ok
    expect["signature"] = describe_signature(sig.signature_info, sig.signature_value_buf,
                                             sig.signature_covered_part)
    return expect


def describe_data(wire) -> dict:
    name, meta, content, sig = parse_data(wire)
    fbid = meta.final_block_id
    expect = {
        "name": describe_name(name),
        "content_type": meta.content_type,
        "freshness_period": meta.freshness_period,
        "final_block_id": None if fbid is None else describe_component(bytes(fbid)),
    }
    expect.update(describe_bytes(content, "content"))
    expect["signature"] = describe_signature(sig.signature_info, sig.signature_value_buf,
                                             sig.signature_covered_part)
    validity = None
    if sig.signature_info is not None:
        cert_info = parse_certificate(wire).signature_info
        vp = getattr(cert_info, "validity_period", None)
        if vp is not None:
            validity = {"not_before": bytes(vp.not_before).decode(),
                        "not_after": bytes(vp.not_after).decode()}
    if expect["signature"] is not None:
        expect["signature"]["validity"] = validity
    expect["implicit_digest"] = sha256_hex(wire)
    return expect


def describe_network_packet(wire) -> tuple[str, dict]:
    typ, _ = parse_tl_num(wire, 0)
    if typ == INTEREST:
        return "interest", describe_interest(wire)
    if typ == DATA:
        return "data", describe_data(wire)
    raise ValueError(f"not an Interest or Data: TLV-TYPE {typ}")


def describe_lp(wire) -> tuple[str, dict]:
    """LpPacket fields as python-ndn's LpPacketValue model sees them.

    parse_lp_packet_v2() refuses fragmented packets, so the model is parsed directly.
    """
    value = parse_and_check_tl(wire, LP_PACKET)
    lp = LpPacketValue.parse(value, {}, ignore_critical=True)
    nack = None
    if lp.nack is not None:
        nack = {"reason": lp.nack.nack_reason}
    cache_policy = None
    if lp.cache_policy is not None:
        cache_policy = lp.cache_policy.cache_policy_type
    expect = {
        "frag_index": lp.frag_index,
        "frag_count": lp.frag_count,
        "pit_token": None if lp.pit_token is None else bytes(lp.pit_token).hex(),
        "nack": nack,
        "incoming_face_id": lp.incoming_face_id,
        "next_hop_face_id": lp.next_hop_face_id,
        "cache_policy": cache_policy,
        "congestion_mark": lp.congestion_mark,
        "tx_sequence": None if lp.tx_sequence is None else int.from_bytes(lp.tx_sequence, "big"),
        "ack": None if lp.ack is None else int.from_bytes(lp.ack, "big"),
        "non_discovery": bool(lp.non_discovery),
        "prefix_announcement": None if lp.prefix_announcement is None
        else bytes(lp.prefix_announcement).hex(),
    }
    expect.update(describe_bytes(lp.fragment, "fragment"))
    # A whole (unfragmented) network packet inside: describe it too.
    inner = None
    if lp.fragment is not None and lp.frag_count in (None, 1):
        kind, fields = describe_network_packet(bytes(lp.fragment))
        inner = {"kind": kind, "expect": fields}
    expect["inner"] = inner
    return ("nack" if nack is not None else "lp"), expect


def describe(wire) -> tuple[str, dict]:
    wire = bytes(wire)
    typ, _ = parse_tl_num(wire, 0)
    if typ == LP_PACKET:
        return describe_lp(wire)
    return describe_network_packet(wire)


def read_inputs(text: str) -> list[str]:
    stripped = text.strip()
    if stripped.startswith("["):
        return list(json.loads(stripped))
    return [line.strip() for line in text.splitlines()
            if line.strip() and not line.strip().startswith("#")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", help="input file (default: stdin)")
    args = ap.parse_args()
    text = open(args.file).read() if args.file else sys.stdin.read()
    out = []
    for hx in read_inputs(text):
        try:
            kind, expect = describe(bytes.fromhex("".join(hx.split())))
            out.append({"kind": kind, "expect": expect})
        except Exception as e:  # report, keep going: one bad packet must not hide the others
            out.append({"error": f"{type(e).__name__}: {e}"})
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

//! `ndnlab packet` end to end: runs the real binary.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use bytes::Bytes;
use ndnlab_wire::{Data, Interest, LpPacket, NackReason, Name};
use serde_json::Value;

fn ndnlab(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ndnlab"))
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run ndnlab");
    if let Some(input) = stdin {
        child
            .stdin
            .take()
            .expect("piped")
            .write_all(input)
            .expect("write stdin");
    }
    child.wait_with_output().expect("wait for ndnlab")
}

/// Runs and expects success; returns stdout.
fn ok(args: &[&str]) -> String {
    let out = ndnlab(args, None);
    assert!(
        out.status.success(),
        "ndnlab {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// Runs and expects failure (exit 1, not a panic); returns stderr.
fn fails(args: &[&str], stdin: Option<&[u8]>) -> String {
    let out = ndnlab(args, stdin);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        out.status.code(),
        Some(1),
        "ndnlab {args:?} should fail cleanly: {err}"
    );
    assert!(!err.contains("panicked"), "panic: {err}");
    err
}

fn temp_file(tag: &str, bytes: &[u8]) -> PathBuf {
    let p = std::env::temp_dir().join(format!("ndnlab-packet-cli-{}-{tag}", std::process::id()));
    std::fs::write(&p, bytes).expect("write temp file");
    p
}

fn json_tree(args: &[&str]) -> Vec<Value> {
    let text = ok(args);
    serde_json::from_str::<Vec<Value>>(&text).unwrap_or_else(|e| panic!("bad JSON ({e}): {text}"))
}

fn child<'a>(node: &'a Value, name: &str) -> &'a Value {
    node["children"]
        .as_array()
        .and_then(|c| c.iter().find(|n| n["name"] == name))
        .unwrap_or_else(|| panic!("no {name} in {node}"))
}

#[test]
fn interest_round_trip() {
    let hex = ok(&[
        "packet",
        "encode",
        "interest",
        "/ndn/app/v=3/seg=7",
        "--can-be-prefix",
        "--must-be-fresh",
        "--lifetime",
        "1500",
        "--hop-limit",
        "9",
        "--nonce",
        "a1b2c3d4",
        "--forwarding-hint",
        "/isp/a",
        "--forwarding-hint",
        "/isp/b",
        "--app-params",
        "cafe01",
    ]);
    let wire = hex::decode(hex.trim()).expect("hex output");
    let i = Interest::decode(Bytes::from(wire)).expect("a valid Interest");
    assert_eq!(i.name().get(0).unwrap().value, b"ndn");
    assert!(i.can_be_prefix() && i.must_be_fresh());
    assert_eq!(i.lifetime_field(), Some(1500));
    assert_eq!(i.hop_limit(), Some(9));
    assert_eq!(i.nonce(), Some(0xa1b2c3d4));
    assert_eq!(i.forwarding_hint().len(), 2);
    assert_eq!(i.app_params().as_deref(), Some(&[0xca, 0xfe, 0x01][..]));

    let text = ok(&["packet", "decode", hex.trim()]);
    for want in [
        "Interest [5]",
        "Name [7] len=",
        "= /ndn/app/v=3/seg=7/params-sha256=",
        "VersionNameComponent [54] len=1 @",
        "CanBePrefix [33]",
        "MustBeFresh [18]",
        "ForwardingHint [30]",
        "= /isp/b",
        "Nonce [10] len=4 @",
        "= a1b2c3d4",
        "InterestLifetime [12] len=2 @",
        "= 1500 ms",
        "HopLimit [34] len=1 @",
        "ApplicationParameters [36] len=3 @",
    ] {
        assert!(text.contains(want), "{want:?} missing from:\n{text}");
    }
    // Indentation shows nesting: components sit under Name, which sits under Interest.
    assert!(
        text.lines()
            .any(|l| l.starts_with("    SegmentNameComponent [50]")),
        "{text}"
    );
}

#[test]
fn interest_nonce_random_unless_given_or_omitted() {
    let interest = |args: &[&str]| {
        let mut all = vec!["packet", "encode", "interest", "/r"];
        all.extend_from_slice(args);
        let hex = ok(&all);
        Interest::decode(Bytes::from(hex::decode(hex.trim()).expect("hex"))).expect("Interest")
    };
    // like ndn-tools: a Nonce unless told otherwise
    assert!(interest(&[]).nonce().is_some());
    assert_eq!(interest(&["--nonce", "00000007"]).nonce(), Some(7));
    let bare = interest(&["--no-nonce"]);
    assert_eq!(bare.nonce(), None);
    assert_eq!(
        bare.wire().as_ref(),
        &hex::decode("05050703080172").unwrap()[..]
    );
    // --nonce and --no-nonce together are refused by the argument parser
    let out = ndnlab(
        &[
            "packet",
            "encode",
            "interest",
            "/r",
            "--nonce",
            "00000007",
            "--no-nonce",
        ],
        None,
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"));
}

#[test]
fn data_round_trip_hex_raw_and_file() {
    let args = [
        "packet",
        "encode",
        "data",
        "/ndn/file/v=1/seg=0",
        "--content",
        "hello world",
        "--freshness",
        "4000",
        "--final-block-id",
        "seg=9",
        "--content-type",
        "2",
    ];
    let hex = ok(&args);
    let wire = hex::decode(hex.trim()).expect("hex output");
    let d = Data::decode(Bytes::from(wire.clone())).expect("a valid Data");
    assert_eq!(d.content_slice(), b"hello world");
    assert_eq!(d.freshness_period().map(|f| f.as_millis()), Some(4000));
    assert_eq!(d.final_block_id().and_then(|c| c.as_segment()), Some(9));
    assert_eq!(d.content_type(), 2);
    assert_eq!(d.signature_type(), 0);
    assert!(ndnlab_wire::DigestSha256::verify(
        d.signed_portion(),
        d.signature_value()
    ));

    // --raw prints the same bytes.
    let mut raw_args = args.to_vec();
    raw_args.push("--raw");
    let raw = ndnlab(&raw_args, None);
    assert!(raw.status.success());
    assert_eq!(raw.stdout, wire);

    // --content-file, and decode --file reading raw bytes.
    let content = temp_file("content", &[0u8, 1, 2, 255]);
    let hex2 = ok(&[
        "packet",
        "encode",
        "data",
        "/f",
        "--content-file",
        content.to_str().unwrap(),
    ]);
    let d2 = Data::decode(Bytes::from(hex::decode(hex2.trim()).unwrap())).unwrap();
    assert_eq!(d2.content_slice(), &[0u8, 1, 2, 255]);
    let packet = temp_file("packet", &wire);
    let text = ok(&["packet", "decode", "--file", packet.to_str().unwrap()]);
    for want in [
        "= /ndn/file/v=1/seg=0",
        "ContentType [24] len=1 @",
        "= 2 (KEY)",
        "= 4000 ms",
        "FinalBlockId [26]",
        "= seg=9",
        "Content [21] len=11 @",
        "\"hello world\"",
        "SignatureType [27]",
        "= 0 (DigestSha256)",
        "SignatureValue [23] len=32",
    ] {
        assert!(text.contains(want), "{want:?} missing from:\n{text}");
    }
    let _ = std::fs::remove_file(content);
    let _ = std::fs::remove_file(packet);
}

#[test]
fn json_output_parses_and_mirrors_the_tree() {
    let hex = ok(&[
        "packet", "encode", "interest", "/a/b", "--nonce", "00000001",
    ]);
    let tree = json_tree(&["packet", "decode", "--json", hex.trim()]);
    assert_eq!(tree.len(), 1);
    let interest = &tree[0];
    assert_eq!(interest["type"], 5);
    assert_eq!(interest["name"], "Interest");
    assert_eq!(interest["offset"], 0);
    let name = child(interest, "Name");
    assert_eq!(name["value"], "/a/b");
    assert_eq!(name["children"].as_array().unwrap().len(), 2);
    assert_eq!(child(interest, "Nonce")["hex"], "00000001");
}

#[test]
fn stdin_hex_or_raw_and_several_packets() {
    let i = ok(&[
        "packet", "encode", "interest", "/one", "--nonce", "01020304",
    ]);
    let d = ok(&["packet", "encode", "data", "/two", "--content", "x"]);
    // hex on stdin, spread over lines
    let input = format!("{}\n{}\n", i.trim(), d.trim());
    let out = ndnlab(&["packet", "decode", "-", "--json"], Some(input.as_bytes()));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree: Vec<Value> = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(tree.len(), 2, "both packets are dumped");
    assert_eq!(tree[0]["name"], "Interest");
    assert_eq!(tree[1]["name"], "Data");
    assert_eq!(tree[1]["offset"], i.trim().len() / 2);
    // raw bytes on stdin
    let mut raw = hex::decode(i.trim()).unwrap();
    raw.extend(hex::decode(d.trim()).unwrap());
    let out = ndnlab(&["packet", "decode", "-"], Some(&raw));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(text.contains("= /one") && text.contains("= /two"), "{text}");
}

#[test]
fn nack_and_lp_packets() {
    let interest =
        hex::decode(ok(&["packet", "encode", "interest", "/n", "--nonce", "0a0b0c0d"]).trim())
            .unwrap();
    let i = Interest::decode(Bytes::from(interest)).unwrap();
    let nack = ndnlab_wire::Nack::new(i.clone(), NackReason::NoRoute).encode();
    let text = ok(&["packet", "decode", &hex::encode(&nack)]);
    assert!(
        text.contains("LpPacket [100]") && text.contains("= Nack NoRoute of Interest"),
        "{text}"
    );
    assert!(
        text.contains("NackReason [801] len=1 @") && text.contains("= 150 (NoRoute)"),
        "{text}"
    );
    assert!(
        text.contains("      Name [7]"),
        "the fragment's Interest is dissected:\n{text}"
    );

    let lp = LpPacket::builder()
        .sequence(7)
        .pit_token(vec![0xaa, 0xbb])
        .incoming_face_id(300)
        .cache_policy(1)
        .congestion_mark(1)
        .ack(5)
        .tx_sequence(6)
        .non_discovery(true)
        .fragment(i.wire().clone())
        .build();
    let text = ok(&["packet", "decode", &hex::encode(&lp)]);
    for want in [
        "Sequence [81] len=8 @2 = 7",
        "PitToken [98] len=2 @",
        "= aabb",
        "IncomingFaceId [812] len=2 @",
        "= 300",
        "CachePolicyType [821] len=1 @",
        "= 1 (NoCache)",
        "CongestionMark [832]",
        "Ack [836] len=8 @",
        "TxSequence [840] len=8 @",
        "NonDiscovery [844]",
        "Fragment [80]",
        "= /n",
    ] {
        assert!(text.contains(want), "{want:?} missing from:\n{text}");
    }
}

#[test]
fn bad_input_names_offset_and_reason() {
    // An Interest whose second element is an unknown critical type (9) at byte 7.
    let err = fails(&["packet", "decode", "0509070308016109020000"], None);
    assert!(
        err.contains("offset 7") && err.contains("unknown-critical"),
        "{err}"
    );
    // The same after a valid packet: the offset is given in the whole input too.
    let err = fails(
        &["packet", "decode", "05050703080161 0509070308016109020000"],
        None,
    );
    assert!(
        err.contains("starting at byte 7") && err.contains("byte 14 of the input"),
        "{err}"
    );
    // Truncated: the TLV says 5 bytes, 4 remain.
    let err = fails(&["packet", "decode", "050507030801"], None);
    assert!(
        err.contains("truncated") && err.contains("offset 0"),
        "{err}"
    );
    // Non-minimal var-number for the Interest's TLV-LENGTH.
    let err = fails(
        &["packet", "decode", "05fd000507030801610a0401020304"],
        None,
    );
    assert!(
        err.contains("non-minimal") && err.contains("offset 1"),
        "{err}"
    );
    // Not hex at all, odd digits, empty.
    assert!(fails(&["packet", "decode", "05zz"], None)
        .contains("invalid hex character 'z' at position 2"));
    assert!(fails(&["packet", "decode", "050"], None).contains("odd number of hex digits"));
    assert!(fails(&["packet", "decode", "-"], Some(b"")).contains("no input"));
    // Garbage after a valid packet.
    let err = fails(&["packet", "decode", "0505070308016100"], None);
    assert!(err.contains("offset 7"), "{err}");
    // Encoding errors.
    assert!(fails(&["packet", "encode", "interest", "no-slash"], None).contains("bad NAME"));
    assert!(fails(&["packet", "encode", "interest", "/a/%zz"], None).contains("percent"));
    assert!(fails(
        &["packet", "encode", "interest", "/a", "--nonce", "0102"],
        None
    )
    .contains("4 bytes"));
    assert!(fails(
        &["packet", "encode", "interest", "/a", "--app-params", "xyz"],
        None
    )
    .contains("--app-params"));
    assert!(fails(
        &[
            "packet",
            "encode",
            "data",
            "/a",
            "--final-block-id",
            "seg=x"
        ],
        None
    )
    .contains("--final-block-id"));
    assert!(fails(
        &[
            "packet",
            "encode",
            "data",
            "/a",
            "--content-file",
            "/nonexistent/ndnlab"
        ],
        None
    )
    .contains("cannot read"));
}

fn python_vectors() -> Value {
    let p =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../ndnlab-wire/tests/vectors/python_ndn.json");
    serde_json::from_str(&std::fs::read_to_string(p).expect("python-ndn vectors")).expect("JSON")
}

#[test]
fn python_ndn_packets_are_dissected() {
    let doc = python_vectors();
    let vectors = doc["vectors"].as_array().expect("vectors");
    let find = |prefix: &str| {
        vectors
            .iter()
            .find(|v| v["desc"].as_str().unwrap_or("").starts_with(prefix))
            .unwrap_or_else(|| panic!("no vector {prefix:?}"))
    };

    let cert = find("certificate v2 signed with ECDSA-P256");
    let text = ok(&["packet", "decode", cert["hex"].as_str().unwrap()]);
    let e = &cert["expect"];
    for want in [
        format!("= {}", e["name"]["uri"].as_str().unwrap()),
        "= 2 (KEY)".into(),
        "= 3 (SignatureSha256WithEcdsa)".into(),
        "KeyLocator [28]".into(),
        format!(
            "= {}",
            e["signature"]["key_locator"]["name"]["uri"]
                .as_str()
                .unwrap()
        ),
        "ValidityPeriod [253]".into(),
        "NotBefore [254] len=15 @".to_string(),
        format!(
            "= {}",
            e["signature"]["validity"]["not_after"].as_str().unwrap()
        ),
    ] {
        assert!(text.contains(&want), "{want:?} missing from:\n{text}");
    }

    let signed = find("signed Interest with SignatureSeqNum");
    let text = ok(&["packet", "decode", signed["hex"].as_str().unwrap()]);
    let s = &signed["expect"]["signature"];
    for want in [
        "InterestSignatureInfo [44]".to_string(),
        "SignatureSeqNum [42] len=1 @".to_string(),
        format!("= {}", s["seq_num"]),
        format!("= {} ms", s["time"]),
        "InterestSignatureValue [46] len=32".into(),
    ] {
        assert!(text.contains(&want), "{want:?} missing from:\n{text}");
    }

    // Every valid python-ndn vector, back to back in one input: all are dumped, in order,
    // at the right offsets; the invalid ones are each rejected.
    let (valid, invalid): (Vec<&Value>, Vec<&Value>) =
        vectors.iter().partition(|v| v["kind"] != "invalid");
    let all: String = valid.iter().map(|v| v["hex"].as_str().unwrap()).collect();
    let file = temp_file("all", &hex::decode(&all).unwrap());
    let tree = json_tree(&[
        "packet",
        "decode",
        "--json",
        "--file",
        file.to_str().unwrap(),
    ]);
    let _ = std::fs::remove_file(file);
    assert_eq!(tree.len(), valid.len());
    let mut offset = 0u64;
    for (node, v) in tree.iter().zip(&valid) {
        let len = v["hex"].as_str().unwrap().len() as u64 / 2;
        assert_eq!(node["offset"].as_u64(), Some(offset), "{}", v["desc"]);
        let top = match v["kind"].as_str().unwrap() {
            "interest" => "Interest",
            "data" => "Data",
            _ => "LpPacket",
        };
        assert_eq!(node["name"], top, "{}", v["desc"]);
        // The Name's value is its canonical URI (python-ndn prints period-only
        // components differently, so the reference is the codec's URI of the same TLV).
        if let Some(tlv) = v["expect"]["name"]["tlv"].as_str() {
            let name = Name::decode(Bytes::from(hex::decode(tlv).unwrap())).unwrap();
            assert_eq!(
                child(node, "Name")["value"],
                name.to_string(),
                "{}",
                v["desc"]
            );
        }
        offset += len;
    }
    for v in invalid {
        let err = fails(&["packet", "decode", v["hex"].as_str().unwrap()], None);
        assert!(err.contains("reason:"), "{}: {err}", v["desc"]);
    }
}

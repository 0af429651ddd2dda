//! Strategy names with parameters (`/localhost/nfd/strategy/asf/v=5/probing-interval~30000`)
//! through the management protocol and the config file, with NFD's status codes for the
//! failures: 404 strategy not registered, 409 bad parameters.

mod common;

use common::RawFace;
use common::TestFwd;
use ndnlab_fwd::FwdConfig;
use ndnlab_proto::mgmt::dataset::{decode_records, DatasetKind};
use ndnlab_proto::mgmt::params::ControlParameters as P;
use ndnlab_wire::Name;

fn n(s: &str) -> Name {
    Name::from_uri(s).unwrap()
}

fn set(c: &mut RawFace, prefix: &str, strategy: &str) -> (u64, String, Option<P>) {
    let r = c
        .command(
            "strategy-choice",
            "set",
            &P {
                name: Some(n(prefix)),
                strategy: Some(n(strategy)),
                ..Default::default()
            },
        )
        .unwrap();
    (r.code, r.text, r.body)
}

fn listed(c: &mut RawFace) -> Vec<(String, String)> {
    let recs = decode_records(
        DatasetKind::Strategy,
        &c.dataset("strategy-choice", "list").unwrap(),
    )
    .unwrap();
    recs.iter()
        .map(|r| {
            (
                r.text("name").unwrap_or_default().to_string(),
                r.text("strategy").unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn parameters_are_kept_and_bad_ones_refused() {
    let fwd = TestFwd::start("strategy-params", |_| {});
    let mut c = fwd.client();

    let asf = "/localhost/nfd/strategy/asf/v=5/probing-interval~30000/max-timeouts~2";
    let (code, text, body) = set(&mut c, "/video", asf);
    assert_eq!(code, 200, "{text}");
    assert_eq!(body.unwrap().strategy.unwrap().to_string(), asf);
    assert!(
        listed(&mut c).contains(&("/video".to_string(), asf.to_string())),
        "{:?}",
        listed(&mut c)
    );

    // Unversioned name: the forwarder answers with the version it runs.
    let (code, _, body) = set(&mut c, "/m", "/localhost/nfd/strategy/multicast");
    assert_eq!(code, 200);
    let full = body.unwrap().strategy.unwrap().to_string();
    assert!(
        full.starts_with("/localhost/nfd/strategy/multicast/v="),
        "{full}"
    );

    for (strategy, want) in [
        // below ASF's 1 s minimum probing interval
        ("/localhost/nfd/strategy/asf/v=5/probing-interval~10", 409),
        ("/localhost/nfd/strategy/asf/v=5/no-such-parameter~1", 409),
        ("/localhost/nfd/strategy/asf/v=5/probing-interval~abc", 409),
        ("/localhost/nfd/strategy/asf/v=99", 404),
        ("/localhost/nfd/strategy/no-such-strategy", 404),
        // NFD 24.07 runs ASF v5: v4 finds it, and its constructor refuses v4.
        ("/localhost/nfd/strategy/asf/v=4", 409),
        ("/localhost/nfd/strategy/random/v=1/x~1", 409),
    ] {
        let (code, text, body) = set(&mut c, "/bad", strategy);
        assert_eq!(code, want, "{strategy}: {text}");
        assert!(!text.is_empty() && body.is_some(), "{strategy}");
    }
    // Refused choices left nothing behind.
    assert!(!listed(&mut c).iter().any(|(p, _)| p == "/bad"));
}

#[test]
fn config_file_strategies_take_parameters() {
    let toml = |s: &str| format!("[[strategy]]\nprefix = \"/a\"\nstrategy = \"{s}\"\n");
    let ok = FwdConfig::from_toml(
        &toml("/localhost/nfd/strategy/asf/v=5/probing-interval~5000"),
        "t.toml".as_ref(),
    )
    .unwrap();
    ok.validate().unwrap();
    let bad = FwdConfig::from_toml(
        &toml("/localhost/nfd/strategy/asf/v=5/probing-interval~1"),
        "t.toml".as_ref(),
    )
    .unwrap();
    let e = bad.validate().unwrap_err().to_string();
    assert!(
        e.contains("strategy[0].strategy") && e.contains("probing-interval"),
        "{e}"
    );
}

/// A refused strategy change (unknown name, bad version, bad parameter, prefix too
/// deep) gets a non-200 response saying why, and leaves the strategy choice list as
/// it was, including a choice it would have replaced. With two shards the change
/// goes through both shard threads' queues before management answers.
#[test]
fn refused_changes_leave_the_choices_unchanged() {
    for threads in [1, 2] {
        let fwd = TestFwd::start("strategy-refused", |c| c.forwarder.threads = threads);
        let mut c = fwd.client();
        let asf = "/localhost/nfd/strategy/asf/v=5/max-timeouts~2";
        let (code, text, _) = set(&mut c, "/video", asf);
        assert_eq!(code, 200, "{text}");
        let before = listed(&mut c);
        assert_eq!(before.len(), 2, "{before:?}");

        let deep = "/d".repeat(65);
        for (prefix, strategy, want, says) in [
            (
                "/video",
                "/localhost/nfd/strategy/no-such-strategy",
                404,
                "Strategy not registered",
            ),
            (
                "/video",
                "/localhost/nfd/strategy/asf/v=99",
                404,
                "Strategy not registered",
            ),
            (
                "/video",
                "/localhost/nfd/strategy/asf/v=5/max-timeouts~x",
                409,
                "max-timeouts",
            ),
            (
                "/new",
                "/localhost/nfd/strategy/best-route/v=1",
                409,
                "BestRouteStrategy does not support version 1",
            ),
            (
                "/new",
                "/localhost/nfd/strategy/multicast/v=5/foo~1",
                409,
                "foo",
            ),
            (&deep, "/localhost/nfd/strategy/multicast", 414, "too long"),
        ] {
            let (code, text, body) = set(&mut c, prefix, strategy);
            assert_eq!(code, want, "{threads} shards, {strategy}: {text}");
            assert!(text.contains(says), "{strategy}: {text}");
            assert!(body.is_some(), "{strategy}");
            assert_eq!(listed(&mut c), before, "{threads} shards, {strategy}");
        }

        // Unsetting the root is refused too; unsetting a choice removes it.
        let r = c
            .command(
                "strategy-choice",
                "unset",
                &P {
                    name: Some(Name::new()),
                    ..Default::default()
                },
            )
            .unwrap();
        assert_eq!(r.code, 400, "{}", r.text);
        assert_eq!(listed(&mut c), before);
        let r = c
            .command(
                "strategy-choice",
                "unset",
                &P {
                    name: Some(n("/video")),
                    ..Default::default()
                },
            )
            .unwrap();
        assert_eq!(r.code, 200, "{}", r.text);
        assert_eq!(listed(&mut c).len(), 1);
    }
}

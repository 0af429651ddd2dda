//! The HTML report of an experiment directory: well-formed, self-contained,
//! every figure present; optionally rendered by headless Chromium.

use std::path::{Path, PathBuf};
use std::process::Command;

use ndnlab_report::{write_report, ReportOptions};

/// Seed 001's 2^4 design (Table 5) as the laboratory would write it, with two
/// factors named, an experiment description, a machine and raw samples.
fn experiment(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ndnlab-report-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("samples")).unwrap();
    let mbps = [
        25, 27, 21, 18, 97, 103, 46, 48, 26, 24, 15, 13, 61, 59, 31, 28,
    ];
    let mut csv = String::from("run_id,cs_capacity,name_length,packet_size,diversity,replicate,seed,status,throughput_mbps,cpu_ratio\n");
    for (i, y) in mbps.iter().enumerate() {
        let lv = |b: usize, lo: &str, hi: &str| {
            if i >> b & 1 == 1 {
                hi.to_string()
            } else {
                lo.to_string()
            }
        };
        csv += &format!(
            "r{i},{},{},{},{},0,{},ok,{y},{:.3}\n",
            lv(0, "10K", "50K"),
            lv(1, "4", "16"),
            lv(2, "128B", "1KB"),
            lv(3, "1", "8"),
            100 + i,
            0.5 + 0.01 * i as f64
        );
    }
    // A failed run is reported but left out of the analysis.
    csv += "r16,10K,4,128B,1,1,116,failed,,\n";
    std::fs::write(dir.join("results.csv"), csv).unwrap();
    std::fs::write(
        dir.join("experiment.toml"),
        "name = \"ccnx-2k\"\ndescription = \"Seed 001's 2^4 design <CCNx>\"\n\n[factors]\ncs_capacity = [\"10K\", \"50K\"]\nname_length = [4, 16]\npacket_size = [\"128B\", \"1KB\"]\ndiversity = [1, 8]\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("machine.json"),
        r#"{"cpu": {"model": "test CPU", "cores": 2}, "memory_gib": 24, "kernel": "6.1"}"#,
    )
    .unwrap();
    for (run, scale) in [("r0", 1.0), ("r5", 2.5)] {
        let mut s = String::from("latency_us\n");
        for k in 0..300 {
            s += &format!("{:.2}\n", scale * (50.0 + (k * 37 % 101) as f64));
        }
        std::fs::write(dir.join("samples").join(format!("{run}.csv")), s).unwrap();
    }
    let mut ts = String::from("t_s,pit_entries,throughput_mbps\n");
    for k in 0..60 {
        ts += &format!("{k},{},{}\n", 100 + (k * 7) % 23, 40 + k % 5);
    }
    std::fs::write(dir.join("samples").join("r1.csv"), ts).unwrap();
    dir
}

/// Checks that tags nest and close, with a real XML parser over the page
/// (void elements written as in HTML are closed first).
fn check_well_formed(html: &str) {
    let body = html.trim_start_matches("<!DOCTYPE html>");
    let xml = body
        .replace("<meta charset=\"utf-8\">", "<meta charset=\"utf-8\"/>")
        .replace(
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>",
        );
    let mut reader = quick_xml::Reader::from_str(&xml);
    reader.config_mut().check_end_names = true;
    let mut depth = 0i64;
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Start(_)) => depth += 1,
            Ok(quick_xml::events::Event::End(_)) => depth -= 1,
            Ok(quick_xml::events::Event::Eof) => break,
            Ok(_) => {}
            Err(e) => panic!("not well-formed at byte {}: {e}", reader.buffer_position()),
        }
    }
    assert_eq!(depth, 0, "unbalanced tags");
}

#[test]
fn report_is_self_contained_and_complete() {
    let dir = experiment("structure");
    let index = write_report(&dir, &ReportOptions::default()).unwrap();
    let html = std::fs::read_to_string(&index).unwrap();
    check_well_formed(&html);
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "external reference"
    );
    assert!(!html.contains("<script") && !html.contains("<link") && !html.contains("@font-face"));
    // The experiment, the machine, escaped text.
    assert!(html.contains("ccnx-2k"));
    assert!(html.contains("Seed 001&#39;s 2^4 design &lt;CCNx&gt;"));
    assert!(html.contains("test CPU"));
    assert!(
        html.contains("runs left out (status not ok)</td><td class=\"num\">1</td>")
            || html.contains("runs left out (status not ok)")
    );
    // Factors from experiment.toml, analysed as a 2^4 design: Table 6's ranking.
    assert!(html.contains("Factorial analysis of throughput_mbps"));
    let top = &html[html.find("Top contributors").unwrap()..];
    let order: Vec<usize> = [
        "packet_size</td>",
        "name_length</td>",
        "name_length × packet_size",
        "diversity</td>",
        "packet_size × diversity",
    ]
    .iter()
    .map(|t| top.find(t).unwrap_or_else(|| panic!("{t} missing")))
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    // Every figure is inlined and written as SVG and PNG.
    let figures = html.matches("<figure id=\"fig-").count();
    assert_eq!(figures, html.matches("<svg").count());
    for id in [
        "throughput-mbps-main-effects",
        "throughput-mbps-cs-capacity-by-name-length",
        "throughput-mbps-allocation",
        "throughput-mbps-normal-effects",
        "samples-latency-us-cdf",
        "samples-latency-us-histogram",
        "timeseries-pit-entries",
    ] {
        assert!(
            html.contains(&format!("<figure id=\"fig-{id}\">")),
            "{id} missing"
        );
        for ext in ["svg", "png"] {
            let p = dir.join("figures").join(format!("{id}.{ext}"));
            let bytes = std::fs::read(&p).unwrap_or_else(|_| panic!("{} missing", p.display()));
            assert!(bytes.len() > 1000, "{} is too small", p.display());
        }
    }
    let png = std::fs::read(dir.join("figures/throughput-mbps-allocation.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_same_input_gives_the_same_page() {
    let a = experiment("det-a");
    let b = experiment("det-b");
    let pa = std::fs::read_to_string(write_report(&a, &ReportOptions::default()).unwrap()).unwrap();
    let pb = std::fs::read_to_string(write_report(&b, &ReportOptions::default()).unwrap()).unwrap();
    assert_eq!(
        pa.replace(a.to_str().unwrap(), ""),
        pb.replace(b.to_str().unwrap(), "")
    );
    assert_eq!(
        std::fs::read(a.join("figures/throughput-mbps-main-effects.png")).unwrap(),
        std::fs::read(b.join("figures/throughput-mbps-main-effects.png")).unwrap()
    );
    let _ = std::fs::remove_dir_all(&a);
    let _ = std::fs::remove_dir_all(&b);
}

#[test]
fn missing_results_is_a_clear_error() {
    let dir = std::env::temp_dir().join(format!("ndnlab-report-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let e = write_report(&dir, &ReportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("results.csv"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

/// Renders the page in headless Chromium and keeps the screenshot in the
/// target directory (skipped when no Chromium is installed).
#[test]
fn renders_in_headless_chromium() {
    let Some(browser) = chromium() else {
        ndnlab_testkit::skip("no chromium, chromium-browser or google-chrome on PATH");
        return;
    };
    let dir = experiment("chromium");
    let index = write_report(&dir, &ReportOptions::default()).unwrap();
    let shot: PathBuf = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ndnlab-report.png");
    let _ = std::fs::remove_file(&shot);
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--window-size=1200,3000",
        ])
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", index.display()))
        .output()
        .expect("run chromium");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let png = std::fs::read(&shot).expect("screenshot written");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    eprintln!("screenshot: {}", shot.display());
    let _ = std::fs::remove_dir_all(&dir);
}

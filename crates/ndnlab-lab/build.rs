//! Records the commit the laboratory was built from, for `machine.json`.

fn main() {
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    if let Some(c) = commit {
        println!("cargo:rustc-env=NDNLAB_COMMIT={c}");
    }
    let git = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.git");
    for f in ["HEAD", "refs/heads"] {
        println!("cargo:rerun-if-changed={}", git.join(f).display());
    }
}

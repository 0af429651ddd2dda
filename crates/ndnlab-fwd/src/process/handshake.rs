//! The handshake of an `ndnlab fwd` child, as a supervisor reads it: [`run`]
//! prints a line per listener ([`LISTENING_PREFIX`] and the URI), then
//! [`READY_LINE`]. [`watch`] is the one reader, for every place that starts a
//! forwarder process (the lab's `processes` and `netns` runners, `bench fwd`'s
//! chain, the binary's integration tests).
//!
//! [`run`]: super::run

use std::io::{BufRead, BufReader, Read};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use super::{LISTENING_PREFIX, READY_LINE};

/// How long a daemon may take to say it is ready.
pub const READY: Duration = Duration::from_secs(20);

/// Reads `out`, a forwarder's stdout, on a thread of its own: once the ready line
/// arrives, the listeners' URIs are sent on the returned channel (which closes
/// without a message if the forwarder exits first); the rest of its output is
/// read and dropped so that the forwarder never blocks on a full pipe.
pub fn watch(out: impl Read + Send + 'static) -> Receiver<Vec<String>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut listening = Vec::new();
        let mut tx = Some(tx);
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            let Some(t) = &tx else { continue };
            if line == READY_LINE {
                let _ = t.send(std::mem::take(&mut listening));
                tx = None;
            } else if let Some(uri) = line.strip_prefix(LISTENING_PREFIX) {
                listening.push(uri.to_string());
            }
        }
    });
    rx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_listeners_come_with_the_ready_line_and_an_early_exit_closes() {
        let out = format!("{LISTENING_PREFIX}unix:///a\n{LISTENING_PREFIX}tcp4://127.0.0.1:1\nnoise\n{READY_LINE}\nlater\n");
        let rx = watch(std::io::Cursor::new(out.into_bytes()));
        assert_eq!(rx.recv().unwrap(), ["unix:///a", "tcp4://127.0.0.1:1"]);
        let rx = watch(std::io::Cursor::new(
            format!("{LISTENING_PREFIX}x\n").into_bytes(),
        ));
        assert!(rx.recv().is_err(), "no ready line: closed");
    }
}

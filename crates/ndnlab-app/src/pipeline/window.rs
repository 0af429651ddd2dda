//! Congestion windows: fixed, AIMD and CUBIC, as in ndn-tools'
//! `PipelineInterestsFixed` and `PipelineInterestsAdaptive`.
//!
//! A window only decides *how many* Interests may be outstanding; the
//! [`Fetcher`](super::Fetcher) decides *when* a loss or a congestion mark
//! counts (conservative window adaptation: at most one decrease per RTT).

use std::time::Duration;

/// Smallest slow-start threshold after a decrease (ndn-tools `MIN_SSTHRESH`).
pub const MIN_SSTHRESH: f64 = 2.0;
/// CUBIC's scaling constant C.
pub const CUBIC_C: f64 = 0.4;

/// Which window algorithm a pipeline uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WindowKind {
    Fixed,
    Aimd,
    Cubic,
}

impl std::str::FromStr for WindowKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "fixed" => Ok(WindowKind::Fixed),
            "aimd" => Ok(WindowKind::Aimd),
            "cubic" => Ok(WindowKind::Cubic),
            other => Err(format!(
                "unknown pipeline `{other}` (expected fixed, aimd or cubic)"
            )),
        }
    }
}

impl std::fmt::Display for WindowKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            WindowKind::Fixed => "fixed",
            WindowKind::Aimd => "aimd",
            WindowKind::Cubic => "cubic",
        })
    }
}

/// Window options, named after ndncatchunks' command-line options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowOptions {
    pub kind: WindowKind,
    /// Window of the fixed pipeline (`--pipeline-size`).
    pub fixed_size: usize,
    /// Initial congestion window (`--init-cwnd`).
    pub init_cwnd: f64,
    /// Initial slow-start threshold (`--init-ssthresh`).
    pub init_ssthresh: f64,
    /// Additive increase step (`--aimd-step`).
    pub aimd_step: f64,
    /// Multiplicative decrease factor (`--aimd-beta`).
    pub aimd_beta: f64,
    /// CUBIC decrease factor (`--cubic-beta`).
    pub cubic_beta: f64,
    /// CUBIC fast convergence (`--fast-conv`).
    pub fast_conv: bool,
    /// After a decrease, restart from `init_cwnd` (`--reset-cwnd-to-init`).
    pub reset_cwnd_to_init: bool,
    /// Upper bound of the window (keeps memory bounded).
    pub max_cwnd: f64,
}

impl Default for WindowOptions {
    fn default() -> Self {
        WindowOptions {
            kind: WindowKind::Cubic,
            fixed_size: 1,
            init_cwnd: 2.0,
            init_ssthresh: f64::MAX,
            aimd_step: 1.0,
            aimd_beta: 0.5,
            cubic_beta: 0.7,
            fast_conv: false,
            reset_cwnd_to_init: false,
            max_cwnd: 65536.0,
        }
    }
}

/// A congestion window. `now` is any monotonic time (a fake clock in tests).
#[derive(Debug, Clone)]
pub struct Window {
    opts: WindowOptions,
    cwnd: f64,
    ssthresh: f64,
    // CUBIC state
    wmax: f64,
    last_wmax: f64,
    last_decrease: Duration,
    decreases: u64,
}

impl Window {
    pub fn new(opts: WindowOptions) -> Self {
        let cwnd = match opts.kind {
            WindowKind::Fixed => opts.fixed_size.max(1) as f64,
            _ => opts.init_cwnd.max(1.0),
        };
        Window {
            opts,
            cwnd,
            ssthresh: opts.init_ssthresh,
            wmax: 0.0,
            last_wmax: 0.0,
            last_decrease: Duration::ZERO,
            decreases: 0,
        }
    }

    /// Current window in packets (at least 1).
    pub fn size(&self) -> usize {
        (self.cwnd.floor() as usize).max(1)
    }
    pub fn cwnd(&self) -> f64 {
        self.cwnd
    }
    pub fn ssthresh(&self) -> f64 {
        self.ssthresh
    }
    pub fn kind(&self) -> WindowKind {
        self.opts.kind
    }
    /// Number of decreases so far.
    pub fn decreases(&self) -> u64 {
        self.decreases
    }

    /// One Data arrived without a congestion signal. `srtt` is the smoothed
    /// RTT (CUBIC's Reno-friendly region is disabled as in ndn-tools).
    pub fn increase(&mut self, now: Duration) {
        match self.opts.kind {
            WindowKind::Fixed => {}
            WindowKind::Aimd => {
                if self.cwnd < self.ssthresh {
                    self.cwnd += self.opts.aimd_step;
                } else {
                    self.cwnd += self.opts.aimd_step / self.cwnd;
                }
            }
            WindowKind::Cubic => {
                if self.cwnd < self.ssthresh {
                    self.cwnd += 1.0;
                } else {
                    let t = now.saturating_sub(self.last_decrease).as_secs_f64();
                    let k = (self.wmax * (1.0 - self.opts.cubic_beta) / CUBIC_C).cbrt();
                    let w_cubic = CUBIC_C * (t - k).powi(3) + self.wmax;
                    let inc = ((w_cubic - self.cwnd) / self.cwnd).clamp(0.0, 1.0);
                    self.cwnd += inc;
                }
            }
        }
        self.cwnd = self.cwnd.min(self.opts.max_cwnd);
    }

    /// A congestion signal (mark, congestion Nack or timeout) that the
    /// pipeline decided to act on.
    pub fn decrease(&mut self, now: Duration) {
        match self.opts.kind {
            WindowKind::Fixed => return,
            WindowKind::Aimd => {
                self.ssthresh = (self.cwnd * self.opts.aimd_beta).max(MIN_SSTHRESH);
            }
            WindowKind::Cubic => {
                if self.opts.fast_conv && self.cwnd < self.last_wmax {
                    self.last_wmax = self.cwnd;
                    self.wmax = self.cwnd * (1.0 + self.opts.cubic_beta) / 2.0;
                } else {
                    self.wmax = self.cwnd;
                    self.last_wmax = self.cwnd;
                }
                self.ssthresh = (self.cwnd * self.opts.cubic_beta).max(MIN_SSTHRESH);
                self.last_decrease = now;
            }
        }
        self.cwnd = if self.opts.reset_cwnd_to_init {
            self.opts.init_cwnd.max(1.0)
        } else {
            self.ssthresh
        };
        self.decreases += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(kind: WindowKind) -> WindowOptions {
        WindowOptions {
            kind,
            ..Default::default()
        }
    }

    #[test]
    fn fixed_never_moves() {
        let mut w = Window::new(WindowOptions {
            fixed_size: 8,
            ..opts(WindowKind::Fixed)
        });
        w.increase(Duration::ZERO);
        w.decrease(Duration::ZERO);
        assert_eq!(w.size(), 8);
        assert_eq!(w.decreases(), 0);
    }

    #[test]
    fn aimd_slow_start_then_congestion_avoidance() {
        let mut w = Window::new(WindowOptions {
            init_cwnd: 1.0,
            init_ssthresh: 4.0,
            ..opts(WindowKind::Aimd)
        });
        for _ in 0..3 {
            w.increase(Duration::ZERO);
        }
        assert_eq!(w.cwnd(), 4.0);
        w.increase(Duration::ZERO);
        assert!((w.cwnd() - 4.25).abs() < 1e-9);
        w.decrease(Duration::ZERO);
        assert!((w.cwnd() - 2.125).abs() < 1e-9);
        assert_eq!(w.ssthresh(), w.cwnd());
        // never below MIN_SSTHRESH
        w.decrease(Duration::ZERO);
        assert_eq!(w.cwnd(), MIN_SSTHRESH);
    }

    #[test]
    fn aimd_reset_to_init() {
        let mut w = Window::new(WindowOptions {
            init_cwnd: 3.0,
            reset_cwnd_to_init: true,
            ..opts(WindowKind::Aimd)
        });
        for _ in 0..10 {
            w.increase(Duration::ZERO);
        }
        w.decrease(Duration::ZERO);
        assert_eq!(w.cwnd(), 3.0);
        assert_eq!(w.ssthresh(), 6.5);
    }

    #[test]
    fn cubic_recovers_to_wmax_after_k_seconds() {
        let mut w = Window::new(WindowOptions {
            init_cwnd: 100.0,
            ..opts(WindowKind::Cubic)
        });
        w.decrease(Duration::from_secs(10));
        assert!((w.cwnd() - 70.0).abs() < 1e-9);
        // K = cbrt(100 * 0.3 / 0.4) = cbrt(75) ~ 4.217 s
        let k = (75.0f64).cbrt();
        // Right after the decrease the cubic target is below cwnd: no growth.
        w.increase(Duration::from_secs(10));
        assert!((w.cwnd() - 70.0).abs() < 1e-9);
        // Long after K, the target is above: growth capped at 1 per ack.
        let later = Duration::from_secs_f64(10.0 + k + 5.0);
        w.increase(later);
        assert!((w.cwnd() - 71.0).abs() < 1e-9);
    }

    #[test]
    fn cubic_fast_convergence_lowers_wmax() {
        let mut w = Window::new(WindowOptions {
            init_cwnd: 100.0,
            fast_conv: true,
            ..opts(WindowKind::Cubic)
        });
        w.decrease(Duration::ZERO); // wmax 100, cwnd 70
        w.decrease(Duration::ZERO); // 70 < last_wmax 100: wmax = 70*1.7/2
        assert!((w.wmax - 59.5).abs() < 1e-9);
        assert!((w.cwnd() - 49.0).abs() < 1e-9);
    }
}

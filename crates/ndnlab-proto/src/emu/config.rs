//! A link's parameters as configuration files write them: [`LinkConfig`], in the
//! files' units (milliseconds, percent, Mbit/s), declared once for every format that
//! describes a link (the forwarder's `emulate = { ... }` and `[[faces.emulation]]`
//! rules, the laboratory's `[link]` and `[[links]]`). [`LinkConfig::params`] is the
//! one conversion to the emulator's [`LinkParams`].
//!
//! The formats hold these keys in tables of their own (a rule's `remote`, a
//! laboratory link's `face` and `cost`), and `#[serde(flatten)]` does not work with
//! `deny_unknown_fields`. So a format's table implements [`LinkTable`] and
//! deserializes with [`deserialize_table`]: the table's own keys, then the link's,
//! and any other key refused with serde's `unknown field` error, which names the key
//! and lists the keys the table takes. [`LinkOverrides`] holds the same keys, each
//! set or not, for a table that overrides another (the laboratory's `[[links]]` over
//! `[link]`). Both types are generated from the one list of keys below.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde::ser::SerializeStruct;

use super::LinkParams;
use crate::lp::Nanos;

/// The link keys of a table: [`LinkConfig`] or [`LinkOverrides`].
pub trait LinkKeys {
    /// Reads the value of `key` if it is a link key (`false`: it is not one, and
    /// the value is left unread).
    fn read_key<'de, A: MapAccess<'de>>(
        &mut self,
        key: &str,
        map: &mut A,
    ) -> Result<bool, A::Error>;

    /// Writes every key but those in `without`, in [`LinkConfig::KEYS`] order, each
    /// as its field (an unset optional one as `None`, which TOML leaves out).
    fn serialize_keys<S: SerializeStruct>(
        &self,
        s: &mut S,
        without: &[&str],
    ) -> Result<(), S::Error>;
}

/// Declares [`LinkConfig`] and [`LinkOverrides`] from one list of keys. A key is
/// `value T` (the field is a `T`, its default `T`'s) or `optional T` (the field is
/// an `Option<T>`, unset by default); in [`LinkOverrides`] every key is an
/// `Option<T>`.
macro_rules! link_keys {
    (@field value $ty:ty) => { $ty };
    (@field optional $ty:ty) => { Option<$ty> };
    (@set value $v:expr) => { $v };
    (@set optional $v:expr) => { Some($v) };
    ($( $(#[doc = $doc:literal])* $key:ident: $kind:ident $ty:ty, )*) => {
        /// A link's parameters in the units of configuration files (see the module
        /// documentation). The default sets nothing: a perfect link.
        #[derive(Debug, Clone, Copy, Default, PartialEq)]
        pub struct LinkConfig {
            $( $(#[doc = $doc])* pub $key: link_keys!(@field $kind $ty), )*
        }

        /// [`LinkConfig`]'s keys, each set (`Some`) or not: a table overriding
        /// another one's keys ([`LinkOverrides::apply`]).
        #[derive(Debug, Clone, Copy, Default, PartialEq)]
        pub struct LinkOverrides {
            $(
                #[doc = concat!("`", stringify!($key), "`, when the table sets it.")]
                pub $key: Option<$ty>,
            )*
        }

        impl LinkConfig {
            /// Every key, in the order tables are written and errors list them.
            pub const KEYS: &'static [&'static str] = &[$(stringify!($key)),*];
        }

        impl LinkOverrides {
            /// `base` with the keys set here.
            pub fn apply(&self, base: &LinkConfig) -> LinkConfig {
                LinkConfig {
                    $( $key: match self.$key {
                        Some(v) => link_keys!(@set $kind v),
                        None => base.$key,
                    }, )*
                }
            }
        }

        impl LinkKeys for LinkConfig {
            fn read_key<'de, A: MapAccess<'de>>(
                &mut self,
                key: &str,
                map: &mut A,
            ) -> Result<bool, A::Error> {
                match key {
                    $( stringify!($key) => {
                        self.$key = link_keys!(@set $kind map.next_value::<$ty>()?)
                    } )*
                    _ => return Ok(false),
                }
                Ok(true)
            }

            fn serialize_keys<S: SerializeStruct>(
                &self,
                s: &mut S,
                without: &[&str],
            ) -> Result<(), S::Error> {
                $( if !without.contains(&stringify!($key)) {
                    s.serialize_field(stringify!($key), &self.$key)?;
                } )*
                Ok(())
            }
        }

        impl LinkKeys for LinkOverrides {
            fn read_key<'de, A: MapAccess<'de>>(
                &mut self,
                key: &str,
                map: &mut A,
            ) -> Result<bool, A::Error> {
                match key {
                    $( stringify!($key) => self.$key = Some(map.next_value::<$ty>()?), )*
                    _ => return Ok(false),
                }
                Ok(true)
            }

            fn serialize_keys<S: SerializeStruct>(
                &self,
                s: &mut S,
                without: &[&str],
            ) -> Result<(), S::Error> {
                $( if !without.contains(&stringify!($key)) {
                    s.serialize_field(stringify!($key), &self.$key)?;
                } )*
                Ok(())
            }
        }
    };
}

link_keys! {
    /// One-way delay added to every frame, in milliseconds.
    delay_ms: value f64,
    /// Each frame's delay varies uniformly within `delay_ms ± jitter_ms`.
    jitter_ms: value f64,
    /// Frames lost at random, in percent (0..=100).
    loss_pct: value f64,
    /// Link rate in Mbit/s: frames are serialized at this rate behind each other.
    /// Unset or 0: unlimited (the laboratory writes 0; the forwarder refuses it).
    bandwidth_mbps: optional f64,
    /// Frames waiting for the transmitter at most (tail drop), with a rate. Unset:
    /// the format's default (`default_queue` of [`LinkConfig::params`], the
    /// forwarder's 1000); 0: unbounded (the laboratory's; the forwarder refuses it).
    queue: optional usize,
    /// Largest frame the link carries, in bytes; 0: any.
    mtu: value usize,
    /// Let jitter reorder frames (the forwarder's datagram faces; the laboratory
    /// does not take the key).
    reorder: value bool,
    /// Seed of the loss and jitter draws; unset: derived by whoever runs the link
    /// (the forwarder from the face id; the laboratory does not take the key).
    seed: optional u64,
}

impl LinkConfig {
    /// The emulator's parameters, the values taken as they are (each format checks
    /// its keys first). A bandwidth that is not positive is no rate; an unset
    /// `queue` gives a rate `default_queue`, and a `queue` of 0 no limit.
    pub fn params(&self, default_queue: Option<usize>) -> LinkParams {
        let ns = |ms: f64| (ms * 1e6).round() as Nanos;
        let rate_bps = self
            .bandwidth_mbps
            .filter(|&m| m > 0.0)
            .map(|m| (m * 1e6).round() as u64);
        LinkParams {
            delay_ns: ns(self.delay_ms),
            jitter_ns: ns(self.jitter_ms),
            loss: self.loss_pct / 100.0,
            rate_bps,
            queue_frames: match self.queue {
                Some(0) => None,
                Some(q) => Some(q),
                None => rate_bps.and(default_queue),
            },
            mtu: (self.mtu != 0).then_some(self.mtu),
            reorder: self.reorder,
        }
    }
}

/// A format's table that holds a link's keys among its own, read by
/// [`deserialize_table`] (see the module documentation).
pub trait LinkTable: Default {
    /// Where the table keeps the link's keys.
    type Keys: LinkKeys;
    /// What a value of another type is refused for (`struct LinkSpec`).
    const EXPECTING: &'static str;
    /// The table's own keys listed before the link's, in errors (every key
    /// [`Self::read_own`] reads is in `LEAD` or `TAIL`).
    const LEAD: &'static [&'static str] = &[];
    /// The table's own keys listed after the link's, in errors.
    const TAIL: &'static [&'static str] = &[];
    /// Link keys the format does not take: refused as unknown, like any other.
    const WITHOUT: &'static [&'static str] = &[];

    fn keys(&mut self) -> &mut Self::Keys;

    /// Reads the value of `key` if it is one of the table's own keys (`false`: it
    /// is not one, and the value is left unread).
    fn read_own<'de, A: MapAccess<'de>>(
        &mut self,
        key: &str,
        map: &mut A,
    ) -> Result<bool, A::Error>;
}

/// Reads a [`LinkTable`] from its defaults: each key the table's own, else the
/// link's; any other key is refused with `unknown field`, naming it and listing
/// every key the table takes. The key is checked as it is read, so the error
/// points at it (TOML's line and column), as a derived struct's does.
pub fn deserialize_table<'de, D: Deserializer<'de>, T: LinkTable>(d: D) -> Result<T, D::Error> {
    struct TableVisitor<T>(PhantomData<T>);

    impl<'de, T: LinkTable> Visitor<'de> for TableVisitor<T> {
        type Value = T;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(T::EXPECTING)
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
            let mut t = T::default();
            while let Some(key) = map.next_key_seed(Key::<T>(PhantomData))? {
                let read = t.read_own(&key, &mut map)? || t.keys().read_key(&key, &mut map)?;
                if !read {
                    // A key listed in LEAD or TAIL that `read_own` does not read.
                    return Err(de::Error::custom(unknown_key::<T>(&key)));
                }
            }
            Ok(t)
        }
    }

    d.deserialize_map(TableVisitor(PhantomData))
}

/// A key of table `T`, refused unless the table takes it.
struct Key<T>(PhantomData<T>);

impl<'de, T: LinkTable> DeserializeSeed<'de> for Key<T> {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de, T: LinkTable> Visitor<'de> for Key<T> {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("field identifier")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<String, E> {
        let own = T::LEAD.contains(&key) || T::TAIL.contains(&key);
        let link = LinkConfig::KEYS.contains(&key) && !T::WITHOUT.contains(&key);
        if own || link {
            Ok(key.to_string())
        } else {
            Err(E::custom(unknown_key::<T>(key)))
        }
    }
}

/// serde's message for an unknown field of a struct with the keys of `T`.
fn unknown_key<T: LinkTable>(key: &str) -> String {
    let link = LinkConfig::KEYS.iter().filter(|k| !T::WITHOUT.contains(k));
    let keys: Vec<String> = T::LEAD
        .iter()
        .chain(link)
        .chain(T::TAIL)
        .map(|k| format!("`{k}`"))
        .collect();
    format!("unknown field `{key}`, expected one of {}", keys.join(", "))
}

/// The table of every link key and nothing else (the forwarder's
/// `emulate = { ... }`).
impl LinkTable for LinkConfig {
    type Keys = LinkConfig;
    const EXPECTING: &'static str = "struct LinkConfig";

    fn keys(&mut self) -> &mut LinkConfig {
        self
    }

    fn read_own<'de, A: MapAccess<'de>>(&mut self, _: &str, _: &mut A) -> Result<bool, A::Error> {
        Ok(false)
    }
}

impl<'de> Deserialize<'de> for LinkConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_table(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table with keys of its own before and after the link's, one link key it
    /// does not take, and overrides.
    #[derive(Debug, Default, PartialEq)]
    struct Entry {
        name: String,
        weight: Option<u32>,
        link: LinkOverrides,
    }

    impl LinkTable for Entry {
        type Keys = LinkOverrides;
        const EXPECTING: &'static str = "struct Entry";
        const LEAD: &'static [&'static str] = &["name"];
        const TAIL: &'static [&'static str] = &["weight"];
        const WITHOUT: &'static [&'static str] = &["seed"];

        fn keys(&mut self) -> &mut LinkOverrides {
            &mut self.link
        }

        fn read_own<'de, A: MapAccess<'de>>(
            &mut self,
            key: &str,
            map: &mut A,
        ) -> Result<bool, A::Error> {
            match key {
                "name" => self.name = map.next_value()?,
                "weight" => self.weight = Some(map.next_value()?),
                _ => return Ok(false),
            }
            Ok(true)
        }
    }

    impl<'de> Deserialize<'de> for Entry {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            deserialize_table(d)
        }
    }

    impl serde::Serialize for Entry {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut t = s.serialize_struct("Entry", 10)?;
            t.serialize_field("name", &self.name)?;
            self.link.serialize_keys(&mut t, Self::WITHOUT)?;
            t.serialize_field("weight", &self.weight)?;
            t.end()
        }
    }

    fn config(text: &str) -> Result<LinkConfig, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }

    #[test]
    fn nothing_set_is_a_perfect_link() {
        let c = config("").unwrap();
        assert_eq!(c, LinkConfig::default());
        assert_eq!(c.bandwidth_mbps, None);
        assert!(c.params(Some(1000)).is_perfect());
        assert_eq!(c.params(Some(1000)), LinkParams::default());
    }

    #[test]
    fn every_key_reads_into_its_field() {
        let c = config(
            "delay_ms = 10.5\njitter_ms = 1\nloss_pct = 2.5\nbandwidth_mbps = 100\n\
             queue = 50\nmtu = 1500\nreorder = true\nseed = 9\n",
        )
        .unwrap();
        assert_eq!(
            c,
            LinkConfig {
                delay_ms: 10.5,
                jitter_ms: 1.0,
                loss_pct: 2.5,
                bandwidth_mbps: Some(100.0),
                queue: Some(50),
                mtu: 1500,
                reorder: true,
                seed: Some(9),
            }
        );
        let p = c.params(None);
        assert_eq!((p.delay_ns, p.jitter_ns), (10_500_000, 1_000_000));
        assert!((p.loss - 0.025).abs() < 1e-12);
        assert_eq!(
            (p.rate_bps, p.queue_frames, p.mtu),
            (Some(100_000_000), Some(50), Some(1500))
        );
        assert!(p.reorder);
    }

    #[test]
    fn queue_defaults_with_a_rate_only_and_zero_is_no_limit() {
        let rate = |text: &str, default| config(text).unwrap().params(default);
        assert_eq!(
            rate("bandwidth_mbps = 1", Some(1000)).queue_frames,
            Some(1000)
        );
        assert_eq!(rate("bandwidth_mbps = 1", None).queue_frames, None);
        assert_eq!(rate("", Some(1000)).queue_frames, None);
        assert_eq!(
            rate("bandwidth_mbps = 1\nqueue = 0", Some(1000)).queue_frames,
            None
        );
        assert_eq!(rate("queue = 5", None).queue_frames, Some(5));
        // a bandwidth of 0 is no rate
        let p = rate("bandwidth_mbps = 0.0\nqueue = 0", Some(1000));
        assert_eq!((p.rate_bps, p.queue_frames), (None, None));
        // Mbit/s to bit/s rounds to the nearest bit/s (4.1 * 1e6 is 4099999.9999999995)
        assert_eq!(rate("bandwidth_mbps = 4.1", None).rate_bps, Some(4_100_000));
    }

    #[test]
    fn an_unknown_key_is_named_with_the_keys_taken() {
        let e = config("dealy_ms = 1").unwrap_err();
        assert!(
            e.contains(
                "unknown field `dealy_ms`, expected one of `delay_ms`, `jitter_ms`, `loss_pct`, \
                 `bandwidth_mbps`, `queue`, `mtu`, `reorder`, `seed`"
            ),
            "{e}"
        );
        // a link key the table does not take is unknown there, and not listed
        let e = toml::from_str::<Entry>("name = \"x\"\nseed = 3\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(
                "unknown field `seed`, expected one of `name`, `delay_ms`, `jitter_ms`, \
                 `loss_pct`, `bandwidth_mbps`, `queue`, `mtu`, `reorder`, `weight`"
            ),
            "{e}"
        );
        // the error points at the key, not at the table
        let e = toml::from_str::<Entry>("name = \"x\"\nloss_pct = 1.0\nwieght = 3\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown field `wieght`"), "{e}");
        assert!(e.contains("line 3, column 1"), "{e}");
        let e = toml::from_str::<std::collections::BTreeMap<String, LinkConfig>>(
            "emulate = { delay_ms = 1, dealy_ms = 2 }",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("line 1, column 27"), "{e}");
    }

    #[test]
    fn bad_values_and_types_are_refused() {
        let e = config("queue = -1").unwrap_err();
        assert!(e.contains("queue") && e.contains("expected usize"), "{e}");
        let e = config("delay_ms = \"x\"").unwrap_err();
        assert!(e.contains("delay_ms") && e.contains("expected f64"), "{e}");
        let e = toml::from_str::<std::collections::BTreeMap<String, LinkConfig>>("emulate = 3")
            .unwrap_err()
            .to_string();
        assert!(e.contains("expected struct LinkConfig"), "{e}");
    }

    #[test]
    fn overrides_set_only_their_keys() {
        let base = LinkConfig {
            delay_ms: 5.0,
            bandwidth_mbps: Some(10.0),
            queue: Some(20),
            mtu: 1500,
            ..Default::default()
        };
        let e: Entry =
            toml::from_str("name = \"a\"\ndelay_ms = 1.0\nqueue = 0\nweight = 2\n").unwrap();
        assert_eq!(e.name, "a");
        assert_eq!(e.weight, Some(2));
        assert_eq!(
            e.link,
            LinkOverrides {
                delay_ms: Some(1.0),
                queue: Some(0),
                ..Default::default()
            }
        );
        assert_eq!(
            e.link.apply(&base),
            LinkConfig {
                delay_ms: 1.0,
                queue: Some(0),
                ..base
            }
        );
        assert_eq!(LinkOverrides::default().apply(&base), base);
    }

    #[test]
    fn tables_write_their_keys_in_order_and_read_back() {
        let e: Entry =
            toml::from_str("weight = 1\nloss_pct = 2.0\nname = \"n\"\nbandwidth_mbps = 5.0\n")
                .unwrap();
        let text = toml::to_string(&e).unwrap();
        assert_eq!(
            text,
            "name = \"n\"\nloss_pct = 2.0\nbandwidth_mbps = 5.0\nweight = 1\n"
        );
        assert_eq!(toml::from_str::<Entry>(&text).unwrap(), e);
    }
}

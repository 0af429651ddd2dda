//! StrategyChoice: which strategy handles which namespace (longest-prefix match),
//! with NFD's versioned strategy instance names, parameters included
//! (`/localhost/nfd/strategy/asf/v=5/probing-interval~30000`, see
//! [`crate::strategy::params`]). The root always has a strategy (best-route by default).

use ndnlab_wire::Name;

use crate::name_table::NameTable;
use crate::strategy::kind::StrategyKind;
use crate::strategy::params::StrategyInstance;

pub(crate) mod error;
pub use error::StrategyChoiceError;

/// The StrategyChoice table.
pub struct StrategyChoice {
    table: NameTable<StrategyInstance>,
    /// Bumped on every change (PIT entries cache their strategy with this version).
    version: u64,
    /// Number of choices whose instance has parameters (0: strategies skip the lookup).
    with_params: usize,
}

impl Default for StrategyChoice {
    fn default() -> Self {
        Self::new(StrategyKind::BestRoute)
    }
}

/// Longest name StrategyChoice accepts.
pub const MAX_PREFIX_LEN: usize = 64;

impl StrategyChoice {
    /// A table with `root` as the strategy of `/`.
    pub fn new(root: StrategyKind) -> Self {
        let mut table = NameTable::new();
        table.get_or_insert_with(&Name::from_uri("/").expect("root name"), || {
            StrategyInstance::from_kind(root)
        });
        StrategyChoice {
            table,
            version: 0,
            with_params: 0,
        }
    }

    /// Choose a strategy for `prefix` (NFD `strategy-choice/set`). `strategy` is an NFD
    /// strategy instance name: with version (`/localhost/nfd/strategy/best-route/v=5`),
    /// optionally followed by parameters, or without version (latest, no parameters).
    /// Returns the strategy chosen; [`Self::instance_name`] gives the full instance name.
    pub fn set(
        &mut self,
        prefix: &Name,
        strategy: &Name,
    ) -> Result<StrategyKind, StrategyChoiceError> {
        let inst = StrategyInstance::parse(strategy)?;
        let kind = inst.kind;
        self.set_instance(prefix, inst)?;
        Ok(kind)
    }

    /// Choose a strategy by kind (no parameters).
    pub fn set_kind(
        &mut self,
        prefix: &Name,
        kind: StrategyKind,
    ) -> Result<(), StrategyChoiceError> {
        self.set_instance(prefix, StrategyInstance::from_kind(kind))
    }

    /// Choose a parsed strategy instance.
    pub fn set_instance(
        &mut self,
        prefix: &Name,
        inst: StrategyInstance,
    ) -> Result<(), StrategyChoiceError> {
        Self::check_prefix(prefix)?;
        let (id, created) = self
            .table
            .get_or_insert_with(prefix, || StrategyInstance::from_kind(inst.kind));
        if !created && self.table.get(id).has_params() {
            self.with_params -= 1;
        }
        if inst.has_params() {
            self.with_params += 1;
        }
        *self.table.get_mut(id) = inst;
        self.version += 1;
        Ok(())
    }

    /// Whether a choice can be made for `prefix` ([`Self::set_instance`] fails
    /// exactly when this does), so that management and the configuration loader can
    /// refuse a choice before any table sees it.
    pub fn check_prefix(prefix: &Name) -> Result<(), StrategyChoiceError> {
        if prefix.len() > MAX_PREFIX_LEN {
            return Err(StrategyChoiceError::PrefixTooLong(prefix.len()));
        }
        Ok(())
    }

    /// Whether the choice of `prefix` can be removed ([`Self::unset`] fails exactly
    /// when this does).
    pub fn check_unset(prefix: &Name) -> Result<(), StrategyChoiceError> {
        if prefix.is_empty() {
            return Err(StrategyChoiceError::CannotUnsetRoot);
        }
        Ok(())
    }

    /// The full instance name chosen for exactly `prefix`, if any.
    pub fn instance_name(&self, prefix: &Name) -> Option<&Name> {
        self.table
            .find_exact(prefix)
            .map(|id| self.table.get(id).name())
    }

    /// Remove the choice for `prefix` (NFD `strategy-choice/unset`); unsetting a prefix
    /// without a choice succeeds.
    pub fn unset(&mut self, prefix: &Name) -> Result<(), StrategyChoiceError> {
        Self::check_unset(prefix)?;
        if let Some(id) = self.table.find_exact(prefix) {
            if self.table.remove(id).is_some_and(|i| i.has_params()) {
                self.with_params -= 1;
            }
            self.version += 1;
        }
        Ok(())
    }

    /// The effective strategy for `name` (longest-prefix match).
    #[inline]
    pub fn find_effective(&self, name: &Name) -> StrategyKind {
        match self.table.lpm(name) {
            Some(id) => self.table.get(id).kind,
            None => StrategyKind::BestRoute,
        }
    }

    /// The effective strategy instance for `name` (longest-prefix match).
    pub fn find_instance(&self, name: &Name) -> Option<&StrategyInstance> {
        self.table.lpm(name).map(|id| self.table.get(id))
    }

    /// The parameters that apply to `name`, or `None` when no choice has parameters
    /// (then no lookup is made: the strategies' hot path).
    #[inline]
    pub fn params_for(&self, name: &Name, hashes: &[u64]) -> Option<&StrategyInstance> {
        if self.with_params == 0 {
            return None;
        }
        self.table
            .lpm_with(name, hashes)
            .map(|id| self.table.get(id))
            .filter(|i| i.has_params())
    }

    /// Same as [`Self::find_effective`] with precomputed prefix hashes.
    #[inline]
    pub fn find_effective_with(&self, name: &Name, hashes: &[u64]) -> StrategyKind {
        if self.table.len() == 1 {
            // Only the root choice (the common case): no lookup.
            if let Some((_, _, k)) = self.table.iter().next() {
                return k.kind;
            }
        }
        match self.table.lpm_with(name, hashes) {
            Some(id) => self.table.get(id).kind,
            None => StrategyKind::BestRoute,
        }
    }

    /// Every choice: `(prefix, strategy)`.
    pub fn iter(&self) -> impl Iterator<Item = (&Name, StrategyKind)> {
        self.table.iter().map(|(_, n, k)| (n, k.kind))
    }

    /// Every choice with its instance (full name and parameters).
    pub fn iter_instances(&self) -> impl Iterator<Item = (&Name, &StrategyInstance)> {
        self.table.iter().map(|(_, n, k)| (n, k))
    }

    /// Number of choices (the root included).
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Never true: the root always has a choice.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Change counter.
    pub fn version(&self) -> u64 {
        self.version
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Name {
        Name::from_uri(s).unwrap()
    }

    #[test]
    fn versioned_names_and_lpm() {
        let mut sc = StrategyChoice::default();
        assert_eq!(sc.find_effective(&n("/a/b")), StrategyKind::BestRoute);
        let k = sc
            .set(&n("/a"), &n("/localhost/nfd/strategy/multicast/v=5"))
            .unwrap();
        assert_eq!(k, StrategyKind::Multicast);
        sc.set(&n("/a/b"), &n("/localhost/nfd/strategy/asf"))
            .unwrap();
        assert_eq!(sc.find_effective(&n("/a/b/c")), StrategyKind::Asf);
        assert_eq!(sc.find_effective(&n("/a/x")), StrategyKind::Multicast);
        assert!(matches!(
            sc.set(&n("/a"), &n("/localhost/nfd/strategy/best-route/v=99")),
            Err(StrategyChoiceError::NotRegistered(_))
        ));
        assert!(matches!(
            sc.set(&n("/a"), &n("/localhost/nfd/strategy/best-route/v=3")),
            Err(StrategyChoiceError::UnsupportedVersion { version: 3, .. })
        ));
        assert!(matches!(
            sc.set(&n("/a"), &n("/localhost/nfd/strategy/ncc")),
            Err(StrategyChoiceError::NotRegistered(_))
        ));
        assert_eq!(sc.unset(&n("/")), Err(StrategyChoiceError::CannotUnsetRoot));
        sc.unset(&n("/a/b")).unwrap();
        assert_eq!(sc.find_effective(&n("/a/b/c")), StrategyKind::Multicast);
        assert_eq!(sc.iter().count(), 2);
    }

    #[test]
    fn instances_with_parameters() {
        let mut sc = StrategyChoice::default();
        let h = |s: &str| crate::hash::prefix_hashes(&n(s));
        assert!(sc.params_for(&n("/a/1"), &h("/a/1")).is_none());
        let asf = n("/localhost/nfd/strategy/asf/v=5/probing-interval~30000/max-timeouts~2");
        assert_eq!(sc.set(&n("/a"), &asf).unwrap(), StrategyKind::Asf);
        assert_eq!(sc.instance_name(&n("/a")), Some(&asf));
        let i = sc.params_for(&n("/a/1"), &h("/a/1")).unwrap();
        assert_eq!(i.max_timeouts, Some(2));
        assert!(sc.params_for(&n("/b/1"), &h("/b/1")).is_none());
        // A bad parameter leaves the table unchanged.
        let bad = n("/localhost/nfd/strategy/asf/v=5/probing-interval~10");
        assert!(matches!(
            sc.set(&n("/a"), &bad),
            Err(StrategyChoiceError::BadParameters { .. })
        ));
        assert_eq!(sc.instance_name(&n("/a")), Some(&asf));
        // Replacing by an instance without parameters, then unsetting, keeps the count right.
        sc.set(&n("/a"), &n("/localhost/nfd/strategy/asf")).unwrap();
        assert!(sc.params_for(&n("/a/1"), &h("/a/1")).is_none());
        assert_eq!(
            sc.instance_name(&n("/a")).unwrap().to_string(),
            "/localhost/nfd/strategy/asf/v=5"
        );
        sc.set(&n("/a"), &asf).unwrap();
        sc.unset(&n("/a")).unwrap();
        assert!(sc.params_for(&n("/a/1"), &h("/a/1")).is_none());
        assert_eq!(sc.with_params, 0);
    }

    #[test]
    fn prefix_checks_match_what_the_table_refuses() {
        let mut sc = StrategyChoice::default();
        let deep = Name::from_uri(&"/c".repeat(MAX_PREFIX_LEN + 1)).unwrap();
        let e = StrategyChoice::check_prefix(&deep).unwrap_err();
        assert_eq!(e, StrategyChoiceError::PrefixTooLong(MAX_PREFIX_LEN + 1));
        assert_eq!(sc.set_kind(&deep, StrategyKind::Asf), Err(e));
        let ok = Name::from_uri(&"/c".repeat(MAX_PREFIX_LEN)).unwrap();
        assert!(StrategyChoice::check_prefix(&ok).is_ok());
        assert!(sc.set_kind(&ok, StrategyKind::Asf).is_ok());
        assert_eq!(
            StrategyChoice::check_unset(&n("/")),
            Err(StrategyChoiceError::CannotUnsetRoot)
        );
        assert!(StrategyChoice::check_unset(&n("/a")).is_ok());
    }
}

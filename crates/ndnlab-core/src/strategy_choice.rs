//! StrategyChoice: which strategy handles which namespace (longest-prefix match),
//! with NFD's versioned strategy names. The root always has a strategy
//! (best-route by default).

use ndnlab_wire::Name;

use crate::name_table::NameTable;
use crate::strategy::StrategyKind;

/// Errors of StrategyChoice management commands.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StrategyChoiceError {
    /// The strategy name (or version) is not one this forwarder implements.
    #[error("unknown strategy {0}")]
    UnknownStrategy(String),
    /// The root prefix's strategy cannot be unset.
    #[error("cannot unset the strategy of the root prefix")]
    CannotUnsetRoot,
    /// A `/localhost` prefix... is fine in NFD; kept for prefixes too long for the table.
    #[error("prefix too long ({0} components)")]
    PrefixTooLong(usize),
}

/// The StrategyChoice table.
pub struct StrategyChoice {
    table: NameTable<StrategyKind>,
    /// Bumped on every change (PIT entries cache their strategy with this version).
    version: u64,
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
        table.get_or_insert_with(&Name::from_uri("/").expect("root name"), || root);
        StrategyChoice { table, version: 0 }
    }

    /// Choose a strategy for `prefix` (NFD `strategy-choice/set`). `strategy` is an NFD
    /// strategy name, with version (`/localhost/nfd/strategy/best-route/v=5`) or without
    /// (latest version). Returns the strategy chosen.
    pub fn set(
        &mut self,
        prefix: &Name,
        strategy: &Name,
    ) -> Result<StrategyKind, StrategyChoiceError> {
        let kind = StrategyKind::from_name(strategy)
            .ok_or_else(|| StrategyChoiceError::UnknownStrategy(strategy.to_string()))?;
        self.set_kind(prefix, kind)?;
        Ok(kind)
    }

    /// Choose a strategy by kind.
    pub fn set_kind(
        &mut self,
        prefix: &Name,
        kind: StrategyKind,
    ) -> Result<(), StrategyChoiceError> {
        if prefix.len() > MAX_PREFIX_LEN {
            return Err(StrategyChoiceError::PrefixTooLong(prefix.len()));
        }
        let (id, _) = self.table.get_or_insert_with(prefix, || kind);
        *self.table.get_mut(id) = kind;
        self.version += 1;
        Ok(())
    }

    /// Remove the choice for `prefix` (NFD `strategy-choice/unset`); unsetting a prefix
    /// without a choice succeeds.
    pub fn unset(&mut self, prefix: &Name) -> Result<(), StrategyChoiceError> {
        if prefix.is_empty() {
            return Err(StrategyChoiceError::CannotUnsetRoot);
        }
        if let Some(id) = self.table.find_exact(prefix) {
            self.table.remove(id);
            self.version += 1;
        }
        Ok(())
    }

    /// The effective strategy for `name` (longest-prefix match).
    #[inline]
    pub fn find_effective(&self, name: &Name) -> StrategyKind {
        match self.table.lpm(name) {
            Some(id) => *self.table.get(id),
            None => StrategyKind::BestRoute,
        }
    }

    /// Same as [`Self::find_effective`] with precomputed prefix hashes.
    #[inline]
    pub fn find_effective_with(&self, name: &Name, hashes: &[u64]) -> StrategyKind {
        if self.table.len() == 1 {
            // Only the root choice (the common case): no lookup.
            if let Some((_, _, k)) = self.table.iter().next() {
                return *k;
            }
        }
        match self.table.lpm_with(name, hashes) {
            Some(id) => *self.table.get(id),
            None => StrategyKind::BestRoute,
        }
    }

    /// Every choice: `(prefix, strategy)`.
    pub fn iter(&self) -> impl Iterator<Item = (&Name, StrategyKind)> {
        self.table.iter().map(|(_, n, k)| (n, *k))
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
            Err(StrategyChoiceError::UnknownStrategy(_))
        ));
        assert_eq!(sc.unset(&n("/")), Err(StrategyChoiceError::CannotUnsetRoot));
        sc.unset(&n("/a/b")).unwrap();
        assert_eq!(sc.find_effective(&n("/a/b/c")), StrategyKind::Multicast);
        assert_eq!(sc.iter().count(), 2);
    }
}

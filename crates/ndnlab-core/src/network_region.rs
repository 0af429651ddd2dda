//! Network region table (NFD `NetworkRegionTable`): the names of the producer
//! regions this forwarder belongs to.
//!
//! An Interest carrying a ForwardingHint has reached its producer region when one of
//! the hint's delegation names is a prefix of (or equal to) one of these region
//! names (NFD `isInProducerRegion`). There the hint has done its job: the incoming
//! Interest pipeline strips it and the strategy looks the FIB up by the Interest
//! name. Elsewhere the FIB is looked up by the delegations, in order (NFD
//! `Strategy::lookupFib`).
//!
//! The table is usually tiny (NFD configures it from `tables.network_region` in
//! `nfd.conf`); a linear scan is the right structure. Management: [`crate::Forwarder::network_region`].

use ndnlab_wire::Name;

/// The producer regions of this forwarder.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NetworkRegionTable {
    regions: Vec<Name>,
}

impl NetworkRegionTable {
    /// An empty table (no region: every ForwardingHint is followed).
    pub fn new() -> Self {
        Self::default()
    }

    /// Add a region name; returns false if it was already present.
    pub fn insert(&mut self, region: Name) -> bool {
        if self.regions.contains(&region) {
            return false;
        }
        self.regions.push(region);
        true
    }

    /// Remove a region name; returns whether it was present.
    pub fn remove(&mut self, region: &Name) -> bool {
        let before = self.regions.len();
        self.regions.retain(|r| r != region);
        self.regions.len() != before
    }

    /// Remove every region.
    pub fn clear(&mut self) {
        self.regions.clear();
    }

    /// The region names, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = &Name> {
        self.regions.iter()
    }

    /// Number of region names.
    pub fn len(&self) -> usize {
        self.regions.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.regions.is_empty()
    }

    /// NFD `isInProducerRegion`: whether some delegation of `forwarding_hint` is a
    /// prefix of some region name. An empty hint is never in a producer region.
    pub fn is_in_producer_region(&self, forwarding_hint: &[Name]) -> bool {
        self.regions
            .iter()
            .any(|region| forwarding_hint.iter().any(|d| d.is_prefix_of(region)))
    }
}

impl FromIterator<Name> for NetworkRegionTable {
    fn from_iter<I: IntoIterator<Item = Name>>(iter: I) -> Self {
        let mut t = NetworkRegionTable::new();
        for n in iter {
            t.insert(n);
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Name {
        Name::from_uri(s).unwrap()
    }

    #[test]
    fn delegation_must_be_a_prefix_of_a_region() {
        let t: NetworkRegionTable = [n("/arizona/cs/hobo"), n("/ndn/edu/arizona")]
            .into_iter()
            .collect();
        assert_eq!(t.len(), 2);
        // Delegation equal to a region, or a prefix of one.
        assert!(t.is_in_producer_region(&[n("/ndn/edu/arizona")]));
        assert!(t.is_in_producer_region(&[n("/telia"), n("/arizona/cs")]));
        assert!(t.is_in_producer_region(&[n("/")]));
        // A delegation longer than every region, or unrelated, is not.
        assert!(!t.is_in_producer_region(&[n("/ndn/edu/arizona/cs")]));
        assert!(!t.is_in_producer_region(&[n("/ucla")]));
        assert!(!t.is_in_producer_region(&[]));
        assert!(!NetworkRegionTable::new().is_in_producer_region(&[n("/")]));
    }

    #[test]
    fn insert_remove() {
        let mut t = NetworkRegionTable::new();
        assert!(t.insert(n("/a")));
        assert!(!t.insert(n("/a")));
        assert!(t.remove(&n("/a")));
        assert!(!t.remove(&n("/a")));
        assert!(t.is_empty());
    }
}

//! Strategy choices (`strategy-choice/set`, `strategy-choice/unset`, `[[strategy]]`
//! in the configuration file).
//!
//! A strategy name is parsed once, by the command handler or the configuration
//! loader, into a [`StrategyInstance`] (kind, version and parameters checked); that
//! typed value is what every shard receives. Management answers only after every
//! shard has applied the change: a shard that cannot apply it makes the command fail
//! with the shard's reason, and the shards that did apply it are set back to the
//! choice they had before, so that the shards and the `strategy-choice/list`
//! dataset stay the same.

use ndnlab_core::{StrategyChoice, StrategyChoiceError, StrategyInstance};
use ndnlab_wire::Name;

use super::Manager;
use crate::runtime::shard::ShardMsg;

/// A refused change: the StatusCode and StatusText of the response.
pub(super) type Refusal = (u64, String);

/// NFD's StatusCode for a refused strategy choice: 404 for a name no registered
/// strategy matches (unknown, malformed, or a version above the registered one), 409
/// for a strategy that refuses the name (a lower version, parameters it does not take
/// or cannot read), 414 for a prefix too deep, 400 for unsetting the root.
pub(super) fn status_code(e: &StrategyChoiceError) -> u64 {
    use StrategyChoiceError as E;
    match e {
        E::BadName(_) | E::NotRegistered(_) => 404,
        E::UnsupportedVersion { .. } | E::NoParameters { .. } | E::BadParameters { .. } => 409,
        E::PrefixTooLong(_) => 414,
        E::CannotUnsetRoot => 400,
    }
}

/// The response parts for a refusal, with NFD's StatusText for a name it refuses
/// ("Strategy not registered", "Error instantiating strategy: ...").
pub(super) fn refusal(e: &StrategyChoiceError) -> Refusal {
    let code = status_code(e);
    let text = match (code, e) {
        (404, _) => "Strategy not registered".to_string(),
        (409, _) => format!("Error instantiating strategy: {e}"),
        _ => e.to_string(),
    };
    (code, text)
}

impl Manager {
    /// Makes `instance` the strategy of `prefix` on every shard, and returns its full
    /// instance name once every shard has applied it.
    pub(super) async fn set_strategy(
        &mut self,
        prefix: &Name,
        instance: StrategyInstance,
    ) -> Result<Name, Refusal> {
        StrategyChoice::check_prefix(prefix).map_err(|e| refusal(&e))?;
        if let Err(r) = self.apply_strategy(prefix, Some(&instance)).await {
            let previous = self.strategies.get(prefix).cloned();
            // Set back what every shard accepted before (or no choice). A shard
            // that stopped forwards nothing any more, so its table no longer matters.
            let _ = self.apply_strategy(prefix, previous.as_ref()).await;
            return Err(r);
        }
        let full = instance.name().clone();
        self.strategies.insert(prefix.clone(), instance);
        Ok(full)
    }

    /// Removes the strategy choice of `prefix` on every shard (a prefix without one
    /// succeeds), answering once every shard has removed it.
    pub(super) async fn unset_strategy(&mut self, prefix: &Name) -> Result<(), Refusal> {
        StrategyChoice::check_unset(prefix)
            .map_err(|e| (status_code(&e), "the strategy of / cannot be unset".into()))?;
        if let Err(r) = self.apply_strategy(prefix, None).await {
            if let Some(previous) = self.strategies.get(prefix).cloned() {
                let _ = self.apply_strategy(prefix, Some(&previous)).await;
            }
            return Err(r);
        }
        self.strategies.remove(prefix);
        Ok(())
    }

    /// Sets (`Some`) or unsets (`None`) the choice of `prefix` on every shard and
    /// waits for every shard's answer; the first refusal names the shard and why.
    async fn apply_strategy(
        &self,
        prefix: &Name,
        instance: Option<&StrategyInstance>,
    ) -> Result<(), Refusal> {
        let acks = self
            .shared
            .ask_shards(|done| match instance {
                Some(i) => ShardMsg::StrategySet {
                    prefix: prefix.clone(),
                    instance: i.clone(),
                    done,
                },
                None => ShardMsg::StrategyUnset {
                    prefix: prefix.clone(),
                    done,
                },
            })
            .await;
        for (shard, ack) in acks.into_iter().enumerate() {
            match ack {
                Some(Ok(())) => {}
                Some(Err(e)) => {
                    return Err((
                        status_code(&e),
                        format!("shard {shard} refused the change: {e}"),
                    ))
                }
                None => {
                    return Err((
                        500,
                        format!("shard {shard} stopped before applying the change"),
                    ))
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_codes_follow_nfd() {
        let parse = |s: &str| StrategyInstance::from_uri(s).unwrap_err();
        assert_eq!(status_code(&parse("/localhost/nfd/strategy/ncc")), 404);
        assert_eq!(status_code(&parse("/localhost/nfd/strategy/asf/v=9")), 404);
        assert_eq!(status_code(&parse("no-slash")), 404);
        assert_eq!(
            status_code(&parse("/localhost/nfd/strategy/asf/v=5/x~1")),
            409
        );
        assert_eq!(
            refusal(&parse("/localhost/nfd/strategy/asf/v=4")),
            (
                409,
                "Error instantiating strategy: AsfStrategy does not support version 4".into()
            )
        );
        assert_eq!(
            refusal(&parse("/localhost/nfd/strategy/random/v=2")),
            (404, "Strategy not registered".into())
        );
        assert_eq!(status_code(&StrategyChoiceError::PrefixTooLong(65)), 414);
        let (code, text) = refusal(&StrategyChoiceError::CannotUnsetRoot);
        assert_eq!(code, 400);
        assert!(text.contains("root"), "{text}");
    }
}

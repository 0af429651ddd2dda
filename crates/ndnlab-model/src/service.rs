//! Service times from a model file: the entry of a stage, packet class and
//! factor levels that a `model:PATH[@STAGE][{factor=level}]` cost string
//! names (`ndnlab_des::cost` parses the strings and documents which entries
//! each class tries), converted to ns. The simulator's forwarding threads
//! (through the laboratory's `sim` runner, [`cost_model`]) and the
//! data-plane model's stages ([`crate::dataplane::spec`]) read model files
//! through this module.

use std::path::{Path, PathBuf};

use ndnlab_analysis::fit::Dist;
use ndnlab_des::{Class, CostError, CostModel, CostSpec, ServiceDist};

use crate::{ModelFile, Selector};

/// Resolves a cost spec, reading the model files it names (relative paths
/// against `base`, each file once). `key` is the spec's key in the
/// experiment (`forwarder.cost`), named in errors.
pub fn cost_model(spec: &CostSpec, base: &Path, key: &str) -> Result<CostModel, CostError> {
    let mut models: Vec<(PathBuf, ModelFile)> = Vec::new();
    CostModel::resolve(spec, key, &mut |class, path, stage, factors| {
        let full = base.join(path);
        let i = match models.iter().position(|(p, _)| *p == full) {
            Some(i) => i,
            None => {
                let m = ModelFile::load(&full).map_err(|e| e.to_string())?;
                models.push((full.clone(), m));
                models.len() - 1
            }
        };
        model_entry(&models[i].1, class, stage, factors)
            .map_err(|msg| format!("{}: {msg}", full.display()))
    })
}

/// The service time of `class` from a model file, converted to ns.
pub fn model_entry(
    m: &ModelFile,
    class: Class,
    stage: &str,
    factors: &[(String, String)],
) -> Result<ServiceDist, String> {
    let to_ns = match m.unit.as_str() {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        u => return Err(format!("unit {u:?} is not a time unit (ns, us, ms, s)")),
    };
    let tries: &[(&str, &str)] = match class {
        Class::Interest => &[("interest", "any"), ("any", "any")],
        Class::CsHit => &[("interest", "hit"), ("interest", "any"), ("any", "any")],
        Class::CsMiss => &[("interest", "miss"), ("interest", "any"), ("any", "any")],
        Class::Data => &[("data", "any"), ("any", "any")],
        Class::Nack => &[("nack", "any"), ("any", "any"), ("data", "any")],
    };
    for (packet, cs) in tries {
        let sel = Selector {
            stage: Some(stage.to_string()),
            packet: Some(packet.to_string()),
            cs: Some(cs.to_string()),
            factors: factors.iter().cloned().collect(),
        };
        // An entry matches only if the spec names all its factors' levels.
        let hits: Vec<_> = m
            .entries
            .iter()
            .filter(|e| e.matches(&sel) && e.factors.len() == sel.factors.len())
            .collect();
        match hits.as_slice() {
            [] => continue,
            [e] => return Ok(ServiceDist::Dist(scale_dist(&e.dist, to_ns))),
            many => {
                return Err(format!(
                    "{} entries for {} ({}); name the factor levels in model:PATH{{factor=level}}",
                    many.len(),
                    class.name(),
                    many.iter()
                        .map(|e| e.label())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            }
        }
    }
    Err(format!(
        "no entry of stage {stage:?} for {} (tried {}); the model has: {}",
        class.name(),
        tries
            .iter()
            .map(|(p, c)| format!("{stage}/{p}/{c}"))
            .collect::<Vec<_>>()
            .join(", "),
        m.entries
            .iter()
            .map(|e| e.label())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// The distribution of `k` X.
fn scale_dist(d: &Dist, k: f64) -> Dist {
    if k == 1.0 {
        return d.clone();
    }
    match d {
        Dist::Normal { mean, sd } => Dist::Normal {
            mean: mean * k,
            sd: sd * k,
        },
        Dist::Lognormal { mu, sigma } => Dist::Lognormal {
            mu: mu + k.ln(),
            sigma: *sigma,
        },
        Dist::Gamma { shape, scale } => Dist::Gamma {
            shape: *shape,
            scale: scale * k,
        },
        Dist::Weibull {
            shape,
            scale,
            location,
        } => Dist::Weibull {
            shape: *shape,
            scale: scale * k,
            location: location * k,
        },
        Dist::Exponential { scale, location } => Dist::Exponential {
            scale: scale * k,
            location: location * k,
        },
        // y = (x^λ - 1)/λ; for kx: y' = k^λ y + (k^λ - 1)/λ, still normal.
        Dist::BoxcoxNormal { lambda, mean, sd } => {
            if lambda.abs() < 1e-12 {
                Dist::BoxcoxNormal {
                    lambda: *lambda,
                    mean: mean + k.ln(),
                    sd: *sd,
                }
            } else {
                let kl = k.powf(*lambda);
                Dist::BoxcoxNormal {
                    lambda: *lambda,
                    mean: kl * mean + (kl - 1.0) / lambda,
                    sd: kl * sd,
                }
            }
        }
        Dist::Empirical { quantiles } => Dist::Empirical {
            quantiles: quantiles.iter().map(|q| q * k).collect(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_model(dir: &Path, unit: &str) -> PathBuf {
        let entry = |stage: &str, packet: &str, cs: &str, scale: f64| {
            format!(
                "[[entry]]\nstage = \"{stage}\"\npacket = \"{packet}\"\ncs = \"{cs}\"\nn = 100\n\
                 [entry.dist]\nfamily = \"exponential\"\nscale = {scale}\n\
                 [entry.fit]\nppcc = 0.99\nad = 0.1\nks = 0.01\n\
                 [entry.stats]\nmin = 0.0\nmean = {scale}\nmedian = 1.0\np99 = 2.0\nmax = 3.0\n\n"
            )
        };
        let text = format!(
            "format = \"ndnlab-model/1\"\nunit = \"{unit}\"\n\n{}{}{}{}",
            entry("fwd", "interest", "hit", 1.0),
            entry("fwd", "interest", "miss", 3.0),
            entry("fwd", "any", "any", 2.0),
            entry("total", "any", "any", 9.0),
        );
        let p = dir.join(format!("model-{unit}.toml"));
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn model_entries_by_class_with_fallbacks_and_units() {
        let dir = std::env::temp_dir().join(format!("ndnlab-model-service-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        write_model(&dir, "us");
        let spec = CostSpec::parse("model:model-us.toml").unwrap();
        let m = cost_model(&spec, &dir, "forwarder.cost").unwrap();
        let mean = |c| m.class(c).mean_ns();
        assert_eq!(mean(Class::CsHit), 1000.0);
        assert_eq!(mean(Class::CsMiss), 3000.0);
        assert_eq!(mean(Class::Interest), 2000.0);
        assert_eq!(mean(Class::Data), 2000.0);
        let total = CostSpec::parse("model:model-us.toml@total").unwrap();
        let m = cost_model(&total, &dir, "forwarder.cost").unwrap();
        assert_eq!(m.class(Class::Nack).mean_ns(), 9000.0);

        let missing = CostSpec::parse("model:nope.toml").unwrap();
        let e = cost_model(&missing, &dir, "forwarder.cost").unwrap_err();
        assert!(e.to_string().starts_with("forwarder.cost: "), "{e}");
        assert!(e.to_string().contains("nope.toml"), "{e}");
        let bad_stage = CostSpec::parse("model:model-us.toml@output").unwrap();
        let e = cost_model(&bad_stage, &dir, "forwarder.cost").unwrap_err();
        assert!(e.message.contains("no entry of stage \"output\""), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_nack_costs_a_data_when_the_model_has_no_nack() {
        let m: ModelFile = toml::from_str(
            "format = \"ndnlab-model/1\"\nunit = \"ns\"\n\
             [[entry]]\nstage = \"fwd\"\npacket = \"interest\"\nn = 10\n\
             dist = { family = \"exponential\", scale = 700.0 }\n\
             fit = { ppcc = 0.99, ad = 0.1, ks = 0.01 }\n\
             stats = { min = 0.0, mean = 700.0, median = 1.0, p99 = 2.0, max = 3.0 }\n\
             [[entry]]\nstage = \"fwd\"\npacket = \"data\"\nn = 10\n\
             dist = { family = \"exponential\", scale = 300.0 }\n\
             fit = { ppcc = 0.99, ad = 0.1, ks = 0.01 }\n\
             stats = { min = 0.0, mean = 300.0, median = 1.0, p99 = 2.0, max = 3.0 }\n",
        )
        .unwrap();
        let nack = model_entry(&m, Class::Nack, "fwd", &[]).unwrap();
        assert_eq!(nack.mean_ns(), 300.0);
        assert_eq!(
            model_entry(&m, Class::Interest, "fwd", &[])
                .unwrap()
                .mean_ns(),
            700.0
        );
    }
}

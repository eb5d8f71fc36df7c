//! The key/value interface of the configuration: parameter values, the conversions of each
//! field type, the errors, and the flat keys of earlier versions.
use super::{ChannelPolicy, Mode, Policy};
use alloc::string::String;
use alloc::string::ToString;

/// A parameter's value, as the key/value interface moves it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// An integer.
    Int(u64),
    /// A word (names, modes, policies).
    Str(String),
}

/// A rejected parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// No parameter has this name.
    UnknownKey(String),
    /// The value has the wrong type or is out of range.
    BadValue {
        /// Parameter.
        key: &'static str,
        /// Why.
        why: &'static str,
    },
}

impl core::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ConfigError::UnknownKey(k) => write!(f, "unknown parameter `{k}`"),
            ConfigError::BadValue { key, why } => write!(f, "parameter `{key}`: {why}"),
        }
    }
}

/// Conversion between a field and a [`Value`].
pub(super) trait Param: Sized {
    fn to_value(&self) -> Value;
    fn from_value(v: &Value) -> Option<Self>;
}

impl Param for u32 {
    fn to_value(&self) -> Value {
        Value::Int(*self as u64)
    }
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Int(i) => u32::try_from(*i).ok(),
            _ => None,
        }
    }
}

impl Param for u64 {
    fn to_value(&self) -> Value {
        Value::Int(*self)
    }
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }
}

impl Param for String {
    fn to_value(&self) -> Value {
        Value::Str(self.clone())
    }
    fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Str(s) => Some(s.clone()),
            _ => None,
        }
    }
}

/// A parameter that is one of a few words.
macro_rules! word_param {
    ($ty:ident { $($variant:ident => $word:literal),* $(,)? }) => {
        impl Param for $ty {
            fn to_value(&self) -> Value {
                Value::Str(match self { $($ty::$variant => $word.to_string()),* })
            }
            fn from_value(v: &Value) -> Option<Self> {
                match v {
                    $(Value::Str(s) if s == $word => Some($ty::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

word_param!(Mode { Functional => "functional", Timing => "timing" });
word_param!(ChannelPolicy { RoundRobin => "round-robin", Priority => "priority" });
word_param!(Policy { Lrr => "lrr", Gto => "gto" });

/// `key`, or the current key of an [`OLD_KEYS`] one.
pub(super) fn current_key(key: &str) -> &str {
    OLD_KEYS.iter().find(|&&(old, _)| old == key).map_or(key, |&(_, new)| new)
}

pub(super) fn type_hint(ty: &str) -> &'static str {
    match ty {
        "u32" => "expected an integer from 0 to 4294967295",
        "u64" => "expected a non-negative integer",
        "Mode" => "expected \"functional\" or \"timing\"",
        "Policy" => "expected \"lrr\" or \"gto\"",
        "ChannelPolicy" => "expected \"round-robin\" or \"priority\"",
        _ => "expected a string",
    }
}

/// The flat keys of rgdev before the parameters were grouped, and the key each is now;
/// [`DeviceConfig::set`] and [`DeviceConfig::get`] accept them, so older preset files load.
pub const OLD_KEYS: &[(&str, &str)] = &[
    ("vram_size", "board.vram_size"),
    ("bar1_size", "board.bar1_size"),
    ("clock_mhz", "board.clock_mhz"),
    ("cc_major", "board.cc_major"),
    ("cc_minor", "board.cc_minor"),
    ("gpcs", "board.gpcs"),
    ("sms", "board.sms"),
    ("max_threads_per_sm", "sm.max_threads"),
    ("max_blocks_per_sm", "sm.max_blocks"),
    ("regs_per_sm", "sm.regs"),
    ("schedulers_per_sm", "sm.schedulers"),
    ("policy", "sm.policy"),
    ("shared_per_sm", "shared.bytes"),
    ("shared_banks", "shared.banks"),
    ("shared_latency", "shared.latency"),
    ("alu_latency", "pipe.alu_latency"),
    ("alu_interval", "pipe.alu_interval"),
    ("f64_latency", "pipe.f64_latency"),
    ("f64_interval", "pipe.f64_interval"),
    ("sfu_latency", "pipe.sfu_latency"),
    ("sfu_interval", "pipe.sfu_interval"),
    ("div_latency", "pipe.div_latency"),
    ("div_interval", "pipe.div_interval"),
    ("shfl_latency", "pipe.shfl_latency"),
    ("tensor_latency", "pipe.tensor_latency"),
    ("tensor_interval", "pipe.tensor_interval"),
    ("branch_latency", "pipe.branch_latency"),
    ("barrier_latency", "pipe.barrier_latency"),
    ("const_latency", "pipe.const_latency"),
    ("l1_bytes", "l1.bytes"),
    ("l1_ways", "l1.ways"),
    ("l1_latency", "l1.latency"),
    ("l1_sectors_per_cycle", "l1.sectors_per_cycle"),
    ("l2_bytes", "l2.bytes"),
    ("l2_ways", "l2.ways"),
    ("l2_banks", "l2.banks"),
    ("l2_latency", "l2.latency"),
    ("l2_bank_cycles", "l2.bank_cycles"),
    ("dram_channels", "dram.channels"),
    ("dram_latency", "dram.latency"),
    ("dram_mbps", "dram.mbps"),
    ("mem_clock_mhz", "dram.clock_mhz"),
    ("mem_bus_bits", "dram.bus_bits"),
    ("pcie_mbps", "pcie.mbps"),
    ("pcie_latency_cycles", "pcie.latency_cycles"),
    ("copy_latency_cycles", "copy.latency_cycles"),
    ("copy_bytes_per_cycle", "copy.bytes_per_cycle"),
    ("method_cycles", "pfifo.method_cycles"),
    ("gpfifo_fetch_cycles", "pfifo.gpfifo_fetch_cycles"),
    ("channel_policy", "pfifo.channel_policy"),
    ("timeslice_cycles", "pfifo.timeslice_cycles"),
    ("launch_overhead_cycles", "dispatch.launch_overhead_cycles"),
    ("dispatch_block_mcycles", "dispatch.block_mcycles"),
    ("dispatch_free_warps", "dispatch.free_warps"),
    ("dispatch_warp_mcycles", "dispatch.warp_mcycles"),
    ("dispatch_extra_mcycles", "dispatch.extra_mcycles"),
];

#[cfg(test)]
mod tests {
    use super::super::{DeviceConfig, PRESETS};
    use super::*;

    #[test]
    fn presets_are_valid_and_round_trip_through_keys() {
        for (name, _) in PRESETS {
            let p = DeviceConfig::preset(name).unwrap();
            p.validate().unwrap();
            let mut q = DeviceConfig::preset("gf100").unwrap();
            for (k, _) in DeviceConfig::KEYS {
                q.set(k, &p.get(k).unwrap()).unwrap();
            }
            assert_eq!(p, q);
        }
        assert!(DeviceConfig::preset("nope").is_none());
    }

    #[test]
    fn old_flat_keys_name_the_grouped_parameters() {
        let c = DeviceConfig::preset("gf100").unwrap();
        for &(old, new) in OLD_KEYS {
            assert!(DeviceConfig::KEYS.iter().any(|&(k, _)| k == new), "{old} -> {new}");
            assert_eq!(c.get(old), c.get(new), "{old}");
        }
        // Every grouped key has exactly one old name (but the `tex` and `uvm` groups and the
        // keys that came after the flat ones), and no old name is a current key.
        let later = |k: &str| {
            k.starts_with("tex.")
                || k.starts_with("uvm.")
                || [
                    "shared.conflict_cycles",
                    "shared.remote_latency",
                    "pipe.seq_latency",
                    "pipe.seq_interval",
                    "l1.unified_bytes",
                    "dispatch.launch_overlap_cycles",
                    "dispatch.retire_mcycles",
                    "dispatch.retire_warp_mcycles",
                    "copy.vram_latency_cycles",
                    "copy.vram_permille",
                    "pcie.staging_h2d_mbps",
                    "pcie.staging_d2h_mbps",
                ]
                .contains(&k)
        };
        let grouped = DeviceConfig::KEYS.iter().filter(|(k, _)| k.contains('.') && !later(k)).count();
        assert_eq!(OLD_KEYS.len(), grouped);
        assert!(OLD_KEYS.iter().all(|&(old, _)| DeviceConfig::KEYS.iter().all(|&(k, _)| k != old)));
        let mut d = c.clone();
        d.set("regs_per_sm", &Value::Int(1024)).unwrap();
        assert_eq!(d.sm.regs, 1024);
        assert_eq!(
            d.set("regs_per_sm", &Value::Str("x".into())).unwrap_err(),
            ConfigError::BadValue { key: "sm.regs", why: "expected an integer from 0 to 4294967295" }
        );
    }
}

//! A system of simulated GPUs: one [`Device`] per GPU of a [`SystemConfig`], each its own
//! PCI function with its own BARs (at its [`Placement`](fake_pci::system::Placement)),
//! VRAM, PFIFO, engines and SMs, probed and brought up by its own instance of the runtime
//! as a driver brings up each function it finds; the handles of GPU `i` carry `i`
//! (`runtime_core::ordinal_of`), so no two GPUs' handles collide. The devices share the process's unified
//! address range, so a device pointer names one GPU's memory in the whole process, and
//! in stepped mode one clock ([`Lockstep`](crate::Lockstep)): waiting on one GPU runs
//! the others to the same time.

use crate::{Device, DeviceOptions, Result, SystemConfig, UserPlatform};
use runtime_core::uvm::Uvm;
use std::sync::{Arc, Weak};

/// The unified-memory service of a system of user-space GPUs.
pub type UserUvm = Uvm<UserPlatform>;

/// The peer accesses of a system of user-space GPUs.
pub type UserPeers = runtime_core::system::Peers<UserPlatform>;

/// The GPUs of a system, in ordinal order.
pub struct System {
    config: SystemConfig,
    devices: Vec<Device>,
    clock: Arc<crate::Lockstep>,
    uvm: Option<Arc<UserUvm>>,
    peers: Arc<UserPeers>,
}

impl System {
    /// The system `RGDEV_PRESET` names (a system preset, a system file, or a device preset
    /// as a system of one GPU); a preset that does not load is reported on stderr and gives
    /// `CuError::InvalidValue`.
    pub fn open() -> Result<Self> {
        let config = crate::preset::system_from_env().map_err(|e| {
            eprintln!("rgdev: {e}");
            runtime_core::CuError::InvalidValue
        })?;
        Self::open_with(config, &DeviceOptions::default())
    }

    /// Bring up every GPU of `config`, each with `opts` (its configuration and place
    /// replaced by the system's).
    pub fn open_with(config: SystemConfig, opts: &DeviceOptions) -> Result<Self> {
        if let Err(e) = config.validate() {
            eprintln!("rgdev: system {}: {e}", config.name);
            return Err(runtime_core::CuError::InvalidValue);
        }
        let clock = crate::Lockstep::for_system(&config);
        let devices = (0..config.len())
            .map(|i| {
                let o = DeviceOptions {
                    config: config.gpus[i].clone(),
                    placement: Some(config.placement(i)),
                    ordinal: i as u32,
                    lockstep: Some(clock.clone()),
                    ..opts.clone()
                };
                Device::open_with(o)
            })
            .collect::<Result<Vec<_>>>()?;
        let peers = Arc::new(UserPeers::default());
        peers.set_gpus(devices.iter().map(|d| Arc::downgrade(d.gpu())).collect(), Self::reach(&config));
        Ok(Self { config, devices, clock, uvm: None, peers })
    }

    /// `reach[a][b]`: GPU `b`'s routing id where the topology gives GPU `a` a peer path to it.
    fn reach(config: &SystemConfig) -> Vec<Vec<Option<u16>>> {
        let n = config.len();
        (0..n).map(|a| (0..n).map(|b| (a != b && config.p2p(a, b)).then(|| config.routing_id(b))).collect()).collect()
    }

    /// The peer accesses between the system's contexts (cuCtxEnablePeerAccess).
    pub fn peers(&self) -> &Arc<UserPeers> {
        &self.peers
    }

    /// Serve unified memory on this system (CUDA's unified addressing and managed
    /// memory): one [`Uvm`] for all its GPUs, every context of every GPU with unified
    /// addressing made replayable, so that a kernel touching host memory of another
    /// context gets it mapped on demand and managed memory is paged (`paging`, from
    /// compute capability 6.0) or mapped everywhere. A wait on one GPU serves the others
    /// too: one GPU's work may wait for another's (an event of another device), whose
    /// faults then need a thread.
    pub fn with_unified_memory(mut self, paging: bool) -> Result<Self> {
        let uvm = Arc::new(UserUvm::new(paging));
        let n = self.devices.len();
        uvm.set_gpus(self.devices.iter().map(|d| Arc::downgrade(d.gpu())).collect(), Self::reach(&self.config));
        for d in &self.devices {
            let gpu = d.gpu();
            if gpu.unified_addressing() {
                uvm.serve_faults_of(gpu)?;
            }
        }
        if n > 1 {
            for (i, d) in self.devices.iter().enumerate() {
                let others: Vec<Weak<crate::UserGpu>> = (self.devices.iter().enumerate())
                    .filter(|&(j, _)| j != i)
                    .map(|(_, o)| Arc::downgrade(o.physical()))
                    .collect();
                let u = uvm.clone();
                d.gpu().serve_also(move || {
                    // Not while a migration holds what their fault services need.
                    !u.busy() && others.iter().filter_map(Weak::upgrade).fold(false, |did, g| g.serve() | did)
                });
            }
        }
        self.uvm = Some(uvm);
        Ok(self)
    }

    /// Present the system as one logical GPU (MGPUSim's unified GPU,
    /// `runtime_core::logical`): the first GPU leads the others, and is the one device a
    /// program sees; its allocations are split by pages over the GPUs, its launches by
    /// blocks, its modules loaded on all. A system of one GPU stays as it is.
    pub fn unify(&self) -> Result<&Device> {
        let first = &self.devices[0];
        if self.devices.len() > 1 {
            let rids: Vec<u16> = (0..self.len()).map(|i| self.config.routing_id(i)).collect();
            let others = self.devices[1..].iter().map(|d| d.physical().clone()).collect();
            first.gpu().form(others, &rids)?;
        }
        Ok(first)
    }

    /// The unified-memory service, once [`System::with_unified_memory`] started it.
    pub fn uvm(&self) -> Option<&Arc<UserUvm>> {
        self.uvm.as_ref()
    }

    /// The system's shared clock (stepped mode): how many host threads it may use
    /// (`Lockstep::set_threads`; the cycles and results do not depend on it).
    pub fn clock(&self) -> &crate::Lockstep {
        &self.clock
    }

    /// The system's configuration (GPUs and interconnect).
    pub fn config(&self) -> &SystemConfig {
        &self.config
    }

    /// The GPUs, in ordinal order.
    pub fn devices(&self) -> &[Device] {
        &self.devices
    }

    /// GPU `i`.
    pub fn device(&self, i: usize) -> Option<&Device> {
        self.devices.get(i)
    }

    /// How many GPUs.
    pub fn len(&self) -> usize {
        self.devices.len()
    }

    /// Whether there are none (never).
    pub fn is_empty(&self) -> bool {
        self.devices.is_empty()
    }
}

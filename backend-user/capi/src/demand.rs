//! The system's unified-memory service (runtime-core's `uvm`: host memory reached on
//! demand through replayable faults, managed memory paged between the host and the GPUs),
//! as the C ABI reaches it: set by cuInit, read without the library lock (the fault service
//! runs inside waits that may hold it).

use backend_user::UserUvm;
use std::sync::{Arc, OnceLock};

/// Environment variable: `host` keeps managed memory as host memory mapped everywhere
/// rather than paged on demand (`paging`, the default, is accepted).
pub(crate) const UVM_ENV: &str = "RGDEV_UVM";

static UVM: OnceLock<Arc<UserUvm>> = OnceLock::new();

/// The service cuInit started (its system's).
pub(crate) fn set(uvm: Arc<UserUvm>) {
    let _ = UVM.set(uvm);
}

/// The service: the system's, or before cuInit one with no GPUs (every call a no-op).
pub(crate) fn uvm() -> &'static UserUvm {
    UVM.get_or_init(|| Arc::new(UserUvm::new(false)))
}

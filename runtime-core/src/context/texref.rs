//! Module texture and surface references (`.texref`, `.surfref`): the legacy API's
//! cuModuleGetTexRef/cuTexRefSet* and cuModuleGetSurfRef/cuSurfRefSetArray.
//!
//! - A reference is a module's slot (its declaration order among the module's `.texref`s
//!   or `.surfref`s, the number its texture instructions carry) with host-side state:
//!   what it is bound to, its format and how it samples.
//! - A bound reference owns one index of the context's texture pools. Its entries are
//!   (re)written at the first launch of the module after the state changed; a launch
//!   binds each slot of the module to its reference's index with BIND_TEXTURE_HEADER /
//!   BIND_TEXTURE_SAMPLER (surfaces: BIND_SURFACE_HEADER), or unbinds it, so an unbound
//!   reference faults the grid that samples it (ILLEGAL_ADDRESS) and never reads another
//!   module's binding.
//! - Entries are never rewritten under a kernel that may read them: each reference keeps
//!   the last fence of every stream that launched with it, and a launch that would
//!   rewrite entries still in use first waits for those fences (`Inner::ref_waits`).

use super::Inner;
use super::texture::{Format, Resource, TEXTURE_PITCH_ALIGNMENT, TexDesc, sampler};
use crate::channel::{Fence, Release};
use crate::device::Device;
use crate::error::{CuError, Result};
use crate::platform::Platform;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use hw::class::{BindHeader, BindSampler, compute, subch};

/// The pool index each texture slot (`[0]`) and surface slot (`[1]`) of a module's
/// references is bound to (None: unbound), as a launch binds them.
pub(crate) type Slots = [[Option<u32>; compute::TEX_SLOTS]; 2];

/// What a texture reference reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefBinding {
    /// Nothing (a launch unbinds the slot).
    None,
    /// An array (its id in the context; handles in the API layer).
    Array(u64),
    /// A mipmapped array (likewise).
    Mipmapped(u64),
    /// Linear memory read by element index (cuTexRefSetAddress), from an address aligned
    /// to TEXTURE_ALIGNMENT.
    Linear {
        /// Device pointer.
        ptr: u64,
        /// Bytes.
        bytes: u64,
    },
    /// Pitch-linear 2D memory (cuTexRefSetAddress2D).
    Pitch2D {
        /// Device pointer.
        ptr: u64,
        /// Width in elements.
        width: u64,
        /// Height in rows.
        height: u64,
        /// Bytes between rows.
        pitch: u64,
    },
}

/// A texture reference's state, as cuTexRefSet* set it and cuTexRefGet* read it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RefState {
    /// What it reads.
    pub binding: RefBinding,
    /// Element format (an array binding uses the array's).
    pub format: Format,
    /// Components per element.
    pub channels: u32,
    /// Address modes, filter modes, CU_TRSF_* flags, border color and levels of detail.
    pub desc: TexDesc,
    /// Maximum anisotropy (kept: fetches in compute kernels have no derivatives).
    pub max_anisotropy: u32,
}

impl Default for RefState {
    /// CUDA's zeroed reference: unbound, wrap addressing, point filtering, no flags,
    /// one 32-bit float component.
    fn default() -> Self {
        Self {
            binding: RefBinding::None,
            format: Format::Float,
            channels: 1,
            desc: TexDesc::default(),
            max_anisotropy: 0,
        }
    }
}

/// A texture or surface reference of a loaded module.
pub(crate) struct TexRef {
    module: u64,
    slot: u32,
    surface: bool,
    pub(crate) state: RefState,
    /// Its pool index, once bound.
    index: Option<u32>,
    /// The entries at `index` no longer match `state`.
    dirty: bool,
    /// The last fence of each stream that launched with its entries.
    used: BTreeMap<u64, Fence>,
}

impl Inner {
    /// The id of the reference `name` of module `m` (a `.surfref` when `surface`): the
    /// same id each time; CUDA_ERROR_NOT_FOUND if the module has none of that name.
    pub(crate) fn ref_id(&mut self, m: u64, name: &str, surface: bool) -> Result<u64> {
        let l = self.module(m)?;
        let names = if surface { &l.program().surfaces } else { &l.program().textures };
        let slot = names.iter().position(|n| n == name).ok_or(CuError::NotFound)? as u32;
        if let Some((&id, _)) = self.refs.iter().find(|(_, r)| r.module == m && r.slot == slot && r.surface == surface)
        {
            return Ok(id);
        }
        let id = self.new_id()?;
        let r = TexRef {
            module: m,
            slot,
            surface,
            state: RefState::default(),
            index: None,
            dirty: false,
            used: BTreeMap::new(),
        };
        self.refs.insert(id, r);
        Ok(id)
    }

    /// Reference `id` (`surface`: a surface reference's, else a texture reference's).
    pub(crate) fn texref(&self, id: u64, surface: bool) -> Result<&TexRef> {
        self.refs.get(&id).filter(|r| r.surface == surface).ok_or(CuError::InvalidValue)
    }

    /// Change reference `id`'s state with `f` (which checks what it sets); its entries are
    /// rewritten at the module's next launch.
    pub(crate) fn ref_update(
        &mut self,
        id: u64,
        surface: bool,
        f: impl FnOnce(&Self, &mut RefState) -> Result<()>,
    ) -> Result<()> {
        let mut state = self.texref(id, surface)?.state;
        f(self, &mut state)?;
        let r = self.refs.get_mut(&id).ok_or(CuError::InvalidValue)?;
        r.state = state;
        r.dirty = true;
        Ok(())
    }

    /// Unbind every reference bound to array or mipmapped array `array` (being destroyed): a kernel that
    /// samples one afterwards faults instead of reading freed memory.
    pub(crate) fn refs_unbind_array(&mut self, array: u64) {
        let bound = |b: RefBinding| b == RefBinding::Array(array) || b == RefBinding::Mipmapped(array);
        for r in self.refs.values_mut().filter(|r| bound(r.state.binding)) {
            r.state.binding = RefBinding::None;
            r.dirty = true;
        }
    }

    /// Drop module `m`'s references; returns their pool indices, to be released with
    /// [`Inner::refs_release`] once the module's work is done.
    pub(crate) fn refs_remove(&mut self, m: u64) -> Vec<u32> {
        let mut indices = Vec::new();
        self.refs.retain(|_, r| {
            if r.module == m {
                indices.extend(r.index);
            }
            r.module != m
        });
        indices
    }

    /// Release pool indices [`Inner::refs_remove`] returned.
    pub(crate) fn refs_release<P: Platform>(&mut self, gpu: &Device<P>, indices: &[u32]) {
        for &i in indices {
            self.pool_release(gpu, i);
        }
    }

    /// What a launch of module `m` must wait for before it may rewrite its references'
    /// entries: the in-flight launches that read entries that changed since.
    pub(crate) fn ref_waits(&mut self, m: u64) -> Result<Vec<Release>> {
        let mut busy: Vec<(u64, Fence)> = Vec::new();
        for r in self.refs.values().filter(|r| r.module == m && r.dirty && r.index.is_some()) {
            busy.extend(r.used.iter().map(|(&s, &f)| (s, f)));
        }
        let mut waits = Vec::new();
        for (s, f) in busy {
            // A destroyed stream's work was waited for when it was destroyed.
            if let Ok(ch) = self.chan(s)
                && ch.completed() < f.0
            {
                waits.push(ch.release_of(f)?);
            }
        }
        Ok(waits)
    }

    /// Bring module `m`'s references' entries up to date (the caller has waited for
    /// [`Inner::ref_waits`]) and queue the methods that bind its slots to them.
    pub(crate) fn ref_methods<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        m: u64,
        cmd: &mut fifo::Pushbuf<2048>,
    ) -> Result<()> {
        let (tex, surf) = {
            let p = self.module(m)?.program();
            (p.textures.len(), p.surfaces.len())
        };
        if tex > compute::TEX_SLOTS || surf > compute::SURF_SLOTS {
            return Err(CuError::InvalidValue);
        }
        let bound = match self.refs_lent.take() {
            Some(lent) => lent,
            None => {
                let ids: Vec<u64> = self.refs.iter().filter(|(_, r)| r.module == m).map(|(&id, _)| id).collect();
                let mut bound: Slots = [[None; compute::TEX_SLOTS]; 2];
                for id in ids {
                    let index = self.ref_refresh(gpu, id)?;
                    let r = &self.refs[&id];
                    bound[r.surface as usize][r.slot as usize] = index;
                }
                bound
            }
        };
        let c = subch::COMPUTE;
        let err = |_| CuError::InvalidValue;
        for (surface, count) in [(false, tex), (true, surf)] {
            for (slot, &index) in bound[surface as usize][..count].iter().enumerate() {
                let h =
                    BindHeader::new().with_valid(index.is_some()).with_slot(slot as u8).with_index(index.unwrap_or(0));
                if surface {
                    cmd.incr(c, compute::BIND_SURFACE_HEADER, &[h.into()]).map_err(err)?;
                } else {
                    let s = BindSampler::new()
                        .with_valid(index.is_some())
                        .with_slot(slot as u8)
                        .with_index(index.unwrap_or(0) as u16);
                    cmd.incr(c, compute::BIND_TEXTURE_HEADER, &[h.into()]).map_err(err)?;
                    cmd.incr(c, compute::BIND_TEXTURE_SAMPLER, &[s.into()]).map_err(err)?;
                }
            }
        }
        Ok(())
    }

    /// The slots module `m`'s references bound at its last launch (the entries are up to
    /// date after it): what the other GPUs' parts of that launch on one logical GPU bind.
    pub(crate) fn ref_slots(&self, m: u64) -> Slots {
        let mut bound: Slots = [[None; compute::TEX_SLOTS]; 2];
        for r in self.refs.values().filter(|r| r.module == m && r.state.binding != RefBinding::None) {
            bound[r.surface as usize][r.slot as usize] = r.index;
        }
        bound
    }

    /// Note that module `m`'s launch with fence `f` on stream `s` reads its references'
    /// entries.
    pub(crate) fn refs_used(&mut self, m: u64, s: u64, f: Fence) {
        for r in self.refs.values_mut().filter(|r| r.module == m && r.index.is_some()) {
            r.used.insert(s, f);
        }
    }

    /// Rewrite reference `id`'s entries if its state changed; returns its pool index
    /// (`None`: unbound). A state the texture unit cannot sample (linear filtering of
    /// integers, a format the binding does not allow) is INVALID_VALUE.
    fn ref_refresh<P: Platform>(&mut self, gpu: &Device<P>, id: u64) -> Result<Option<u32>> {
        let r = self.refs.get(&id).ok_or(CuError::InvalidValue)?;
        if !r.dirty {
            return Ok(if r.state.binding == RefBinding::None { None } else { r.index });
        }
        let (st, surface) = (r.state, r.surface);
        let res = match st.binding {
            RefBinding::None => None,
            RefBinding::Array(a) => Some(Resource::Array(a)),
            RefBinding::Mipmapped(m) => Some(Resource::Mipmapped(m)),
            RefBinding::Linear { ptr, bytes } => {
                Some(Resource::Linear { ptr, format: st.format, channels: st.channels, bytes })
            }
            RefBinding::Pitch2D { ptr, width, height, pitch } => {
                Some(Resource::Pitch2D { ptr, format: st.format, channels: st.channels, width, height, pitch })
            }
        };
        // cuTexRefSetAddress aligned the base down; cuTexRefSetAddress2D's base needs
        // only the pitch alignment.
        if res.is_some_and(|r| !r.aligned(TEXTURE_PITCH_ALIGNMENT)) {
            return Err(CuError::InvalidValue);
        }
        let entries = match res {
            None => None,
            Some(res) if surface => Some((self.header(res, None)?, None)),
            Some(res) => {
                let h = self.header(res, Some(&st.desc))?;
                Some((h, Some(sampler(&h, &st.desc)?)))
            }
        };
        let index = match (entries, self.refs[&id].index) {
            (None, _) => None,
            (Some((h, s)), old) => {
                let i = match old {
                    Some(i) => i,
                    None => self.pool_index(gpu)?,
                };
                let written = self.write_entries(gpu, i, h, s);
                if let Err(e) = written {
                    if old.is_none() {
                        self.pool_release(gpu, i);
                    }
                    return Err(e);
                }
                Some(i)
            }
        };
        let r = self.refs.get_mut(&id).ok_or(CuError::InvalidValue)?;
        r.dirty = false;
        // An unbound reference keeps its index (released with its module).
        r.index = index.or(r.index);
        Ok(index)
    }
}

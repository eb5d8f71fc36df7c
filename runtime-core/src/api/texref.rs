//! Module texture and surface references (cuModuleGetTexRef, cuTexRefSet*/Get*,
//! cuModuleGetSurfRef, cuSurfRefSetArray/GetArray) over the context layer's
//! [`crate::context::texref`]: a reference's state lives on the host until a launch of
//! its module writes it into the context's texture pools.

use super::module::ModuleHandle;
use super::texture::{ArrayHandle, MipmappedHandle};
use super::{CtxHandle, Gpu, Object, id_in, object};
use crate::context::texref::{RefBinding, RefState};
use crate::context::texture::{ARRAY_SURFACE_LDST, Format, TEXTURE_ALIGNMENT, TEXTURE_PITCH_ALIGNMENT};
use crate::error::{CuError, Result};
use crate::platform::Platform;

/// A module's texture or surface reference: its context's handle over its id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TexRefHandle(pub u64);
object_handle!(TexRefHandle, "texture or surface reference");

/// Pitch-linear 2D memory a texture reference reads (cuTexRefSetAddress2D).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pitch2DMem {
    /// Device pointer (a multiple of TEXTURE_PITCH_ALIGNMENT).
    pub ptr: u64,
    /// Element format.
    pub format: Format,
    /// Components per element.
    pub channels: u32,
    /// Width in elements.
    pub width: u64,
    /// Height in rows.
    pub height: u64,
    /// Bytes between rows (a multiple of TEXTURE_PITCH_ALIGNMENT).
    pub pitch: u64,
}

impl<P: Platform> Gpu<P> {
    /// Reference `name` of module `m`: a `.surfref` when `surface` (cuModuleGetSurfRef),
    /// else a `.texref` (cuModuleGetTexRef). The same handle each time; NOT_FOUND for a
    /// name the module does not declare.
    pub fn module_get_ref(&self, m: ModuleHandle, name: &str, surface: bool) -> Result<TexRefHandle> {
        let h = m.ctx();
        self.with_objs(h, &[m.named()], |_, c| c.ref_id(m.id(), name, surface)).map(|id| TexRefHandle(object(h, id)))
    }

    /// A reference's state (cuTexRefGet*, cuSurfRefGetArray); an array binding names the
    /// array by its handle.
    pub fn texref_state(&self, r: TexRefHandle, surface: bool) -> Result<RefState> {
        let h = r.ctx();
        let mut st = self.with_objs(h, &[r.named()], |_, c| Ok(c.texref(r.id(), surface)?.state))?;
        st.binding = match st.binding {
            RefBinding::Array(id) => RefBinding::Array(object(h, id)),
            RefBinding::Mipmapped(id) => RefBinding::Mipmapped(object(h, id)),
            b => b,
        };
        Ok(st)
    }

    /// Change how a texture reference samples with `f` (cuTexRefSetFormat, SetAddressMode,
    /// SetFilterMode, SetFlags, SetBorderColor, ...); what it is bound to stays. The next
    /// launch of its module uses the new state.
    pub fn texref_update(&self, r: TexRefHandle, f: impl FnOnce(&mut RefState) -> Result<()>) -> Result<()> {
        self.with_objs(r.ctx(), &[r.named()], |_, c| {
            c.ref_update(r.id(), false, |_, st| {
                let binding = st.binding;
                f(st)?;
                st.binding = binding;
                Ok(())
            })
        })
    }

    /// Bind a reference to array `a` of its context (cuTexRefSetArray, cuSurfRefSetArray):
    /// a texture reference takes the array's format; a surface reference needs an array
    /// made with CUDA_ARRAY3D_SURFACE_LDST.
    pub fn texref_set_array(&self, r: TexRefHandle, surface: bool, a: ArrayHandle) -> Result<()> {
        let h = r.ctx();
        let id = id_in(h, a.0).map_err(|_| CuError::InvalidValue)?;
        self.with_objs(h, &[r.named()], |_, c| {
            c.ref_update(r.id(), surface, |c, st| {
                let d = c.array(id)?.desc;
                if surface && d.flags & ARRAY_SURFACE_LDST == 0 {
                    return Err(CuError::InvalidValue);
                }
                st.binding = RefBinding::Array(id);
                (st.format, st.channels) = (d.format, d.channels);
                Ok(())
            })
        })
    }

    /// Bind a texture reference to a mipmapped array, read in its format
    /// (cuTexRefSetMipmappedArray).
    pub fn texref_set_mipmapped(&self, r: TexRefHandle, m: MipmappedHandle) -> Result<()> {
        let h = r.ctx();
        let id = id_in(h, m.0).map_err(|_| CuError::InvalidValue)?;
        self.with_objs(h, &[r.named()], |_, c| {
            c.ref_update(r.id(), false, |c, st| {
                let d = c.mipmapped_desc(id)?;
                st.binding = RefBinding::Mipmapped(id);
                (st.format, st.channels) = (d.format, d.channels);
                Ok(())
            })
        })
    }

    /// Bind a texture reference to `bytes` of linear memory at `ptr` (cuTexRefSetAddress).
    /// The texture starts at `ptr` rounded down to TEXTURE_ALIGNMENT; returns the bytes
    /// from there to `ptr`, which fetches add (CUDA's `ByteOffset`).
    pub fn texref_set_address(&self, r: TexRefHandle, ptr: u64, bytes: u64) -> Result<u64> {
        let base = ptr & !(TEXTURE_ALIGNMENT - 1);
        self.with_objs(r.ctx(), &[r.named()], |_, c| {
            c.ref_update(r.id(), false, |c, st| {
                if bytes == 0 {
                    return Err(CuError::InvalidValue);
                }
                c.check_range(ptr, bytes, false)?;
                st.binding = RefBinding::Linear { ptr: base, bytes: bytes + (ptr - base) };
                Ok(())
            })
        })?;
        Ok(ptr - base)
    }

    /// Bind a texture reference to pitch-linear 2D memory (cuTexRefSetAddress2D); it takes
    /// the memory's format.
    pub fn texref_set_address_2d(&self, r: TexRefHandle, m: Pitch2DMem) -> Result<()> {
        let eb = m.format.bytes() * m.channels as u64;
        let aligned = m.ptr.is_multiple_of(TEXTURE_PITCH_ALIGNMENT) && m.pitch.is_multiple_of(TEXTURE_PITCH_ALIGNMENT);
        if !aligned || !matches!(m.channels, 1 | 2 | 4) || m.width == 0 || m.height == 0 || m.pitch < m.width * eb {
            return Err(CuError::InvalidValue);
        }
        self.with_objs(r.ctx(), &[r.named()], |_, c| {
            c.ref_update(r.id(), false, |c, st| {
                c.check_range(m.ptr, (m.height - 1) * m.pitch + m.width * eb, false)?;
                st.binding = RefBinding::Pitch2D { ptr: m.ptr, width: m.width, height: m.height, pitch: m.pitch };
                (st.format, st.channels) = (m.format, m.channels);
                Ok(())
            })
        })
    }
}

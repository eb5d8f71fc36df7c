//! Arrays, texture objects and surface objects (cuArray*, cuTexObject*, cuSurfObject*) and
//! copies to and from arrays (cuMemcpy2D/3D with an array side), over the context layer's
//! [`crate::context::texture`]. An array handle is an object handle like a module's; a
//! texture or surface object's handle is the value kernels pass to the texture unit, so
//! it names an object of the context it is used with.

use super::{CtxHandle, Gpu, Object, StreamHandle, id_in, object};
use crate::channel::Fence;
use crate::context::texture::{
    ArrayDesc, Endpoint, HostSide, Object as TexObject, Resource, Surface, TexDesc, copy_surfaces,
};
use crate::error::{CuError, Result};
use crate::platform::Platform;

/// A CUDA array: its context's handle over its id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ArrayHandle(pub u64);
object_handle!(ArrayHandle, "array");

/// A mipmapped array: its context's handle over its id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MipmappedHandle(pub u64);
object_handle!(MipmappedHandle, "mipmapped array");

/// One side of a copy with an array: device memory (rows `pitch` bytes apart, `height`
/// rows per slice) or an array; either way from byte `at[0]` of row `at[1]` of slice
/// `at[2]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopySide {
    /// Device (or mapped pinned) memory.
    Device {
        /// Device pointer.
        ptr: u64,
        /// Bytes between rows.
        pitch: u64,
        /// Rows between slices.
        height: u64,
    },
    /// An array.
    Array(ArrayHandle),
}

impl<P: Platform> Gpu<P> {
    /// Make an array in context `h` (cuArrayCreate, cuArray3DCreate).
    pub fn array_create(&self, h: CtxHandle, desc: ArrayDesc) -> Result<ArrayHandle> {
        self.with_ctx(h, |gpu, c| c.array_create(gpu, desc)).map(|id| ArrayHandle(object(h, id)))
    }

    /// Destroy an array (cuArrayDestroy) once the context's queued work is done.
    pub fn array_destroy(&self, a: ArrayHandle) -> Result<()> {
        let h = a.ctx();
        self.with_objs(h, &[a.named()], |_, c| c.array(a.id()).map(drop))?;
        self.ctx_synchronize(h)?;
        self.with_objs(h, &[a.named()], |gpu, c| c.array_destroy(gpu, a.id()))
    }

    /// Make a mipmapped array of `levels` levels in context `h` (cuMipmappedArrayCreate).
    pub fn mipmapped_create(&self, h: CtxHandle, desc: ArrayDesc, levels: u32) -> Result<MipmappedHandle> {
        self.with_ctx(h, |gpu, c| c.mipmapped_create(gpu, desc, levels)).map(|id| MipmappedHandle(object(h, id)))
    }

    /// Level `level` of a mipmapped array, as an array (cuMipmappedArrayGetLevel).
    pub fn mipmapped_level(&self, m: MipmappedHandle, level: u32) -> Result<ArrayHandle> {
        let h = m.ctx();
        self.with_objs(h, &[m.named()], |_, c| c.mipmapped_level(m.id(), level)).map(|id| ArrayHandle(object(h, id)))
    }

    /// Destroy a mipmapped array and its levels' arrays (cuMipmappedArrayDestroy) once
    /// the context's queued work is done.
    pub fn mipmapped_destroy(&self, m: MipmappedHandle) -> Result<()> {
        let h = m.ctx();
        self.with_objs(h, &[m.named()], |_, c| c.mipmapped(m.id()))?;
        self.ctx_synchronize(h)?;
        self.with_objs(h, &[m.named()], |gpu, c| c.mipmapped_destroy(gpu, m.id()))
    }

    /// An array's descriptor (cuArray3DGetDescriptor).
    pub fn array_desc(&self, a: ArrayHandle) -> Result<ArrayDesc> {
        self.with_objs(a.ctx(), &[a.named()], |_, c| c.array(a.id()).map(|x| x.desc))
    }

    /// Make a texture object in context `h` (cuTexObjectCreate); `res` names arrays by
    /// their handles. Returns the handle kernels sample it by.
    pub fn tex_create(&self, h: CtxHandle, res: Resource, desc: TexDesc) -> Result<u64> {
        let res = self.resource_in(h, res)?;
        self.with_ctx(h, |gpu, c| c.tex_create(gpu, res, desc))
    }

    /// Make a surface object over array `a` (cuSurfObjectCreate).
    pub fn surf_create(&self, h: CtxHandle, a: ArrayHandle) -> Result<u64> {
        let id = id_in(h, a.0).map_err(|_| CuError::InvalidValue)?;
        self.with_ctx(h, |gpu, c| c.surf_create(gpu, id))
    }

    /// Destroy a texture (`surface` false) or surface object of context `h`
    /// (cuTexObjectDestroy, cuSurfObjectDestroy) once the context's queued work is done.
    pub fn tex_destroy(&self, h: CtxHandle, handle: u64, surface: bool) -> Result<()> {
        self.with_ctx(h, |_, c| c.object(handle, surface).map(drop))?;
        self.ctx_synchronize(h)?;
        self.with_ctx(h, |gpu, c| c.object_destroy(gpu, handle, surface))
    }

    /// What a texture object reads and how (cuTexObjectGetResourceDesc,
    /// cuTexObjectGetTextureDesc); arrays by their handles.
    pub fn tex_desc(&self, h: CtxHandle, handle: u64) -> Result<(Resource, TexDesc)> {
        match self.with_ctx(h, |_, c| c.object(handle, false))? {
            TexObject::Texture(res, desc) => Ok((resource_out(h, res), desc)),
            TexObject::Surface(_) => Err(CuError::InvalidValue),
        }
    }

    /// The array a surface object writes (cuSurfObjectGetResourceDesc).
    pub fn surf_array(&self, h: CtxHandle, handle: u64) -> Result<ArrayHandle> {
        match self.with_ctx(h, |_, c| c.object(handle, true))? {
            TexObject::Surface(id) => Ok(ArrayHandle(object(h, id))),
            TexObject::Texture(..) => Err(CuError::InvalidValue),
        }
    }

    /// `res` with its array's id in context `h` (an array of another context, or none, is
    /// INVALID_VALUE).
    fn resource_in(&self, h: CtxHandle, res: Resource) -> Result<Resource> {
        Ok(match res {
            Resource::Array(a) => Resource::Array(id_in(h, a).map_err(|_| CuError::InvalidValue)?),
            Resource::Mipmapped(m) => Resource::Mipmapped(id_in(h, m).map_err(|_| CuError::InvalidValue)?),
            r => r,
        })
    }

    /// Copy `extent` (bytes per row, rows, slices) from `src` at `src_at` to `dst` at
    /// `dst_at` on stream `s`, where at least one side is an array of context `h` and the
    /// other device memory or an array (cuMemcpy2D/3D(Async), cuMemcpyAtoD, cuMemcpyDtoA,
    /// cuMemcpyAtoA). Returns the stream's fence.
    pub fn memcpy_array(
        &self,
        h: CtxHandle,
        s: StreamHandle,
        (src, src_at): (CopySide, [u64; 3]),
        (dst, dst_at): (CopySide, [u64; 3]),
        extent: [u64; 3],
    ) -> Result<Fence> {
        let named = [s.named(), side_handle(src), side_handle(dst)];
        self.with_objs(h, &named, |gpu, c| {
            let a = endpoint(c, src, src_at, extent, false)?;
            let b = endpoint(c, dst, dst_at, extent, true)?;
            let ch = c.ordered(gpu, s.local())?;
            copy_surfaces(gpu, ch, a, b, extent)
        })
    }

    /// Copy `extent` from host memory (rows `pitch` bytes apart, slices `slice` apart) to
    /// array `a` at `at` (cuMemcpyHtoA, cuMemcpy2D/3D from the host); returns when `src`
    /// may be reused.
    pub fn memcpy_htoa(
        &self,
        a: ArrayHandle,
        at: [u64; 3],
        src: &[u8],
        pitch_slice: (u64, u64),
        extent: [u64; 3],
    ) -> Result<()> {
        let e = self.with_objs(a.ctx(), &[a.named()], |_, c| endpoint(c, CopySide::Array(a), at, extent, true))?;
        self.ctx(a.ctx())?.copy_host_array(&self.dev, HostSide::From(src), pitch_slice, e, extent)
    }

    /// Copy `extent` from array `a` at `at` to host memory (rows `pitch` bytes apart,
    /// slices `slice` apart) (cuMemcpyAtoH, cuMemcpy2D/3D to the host), after the
    /// context's earlier work on the default stream.
    pub fn memcpy_atoh(
        &self,
        a: ArrayHandle,
        at: [u64; 3],
        dst: &mut [u8],
        pitch_slice: (u64, u64),
        extent: [u64; 3],
    ) -> Result<()> {
        let e = self.with_objs(a.ctx(), &[a.named()], |_, c| endpoint(c, CopySide::Array(a), at, extent, false))?;
        self.ctx(a.ctx())?.copy_host_array(&self.dev, HostSide::To(dst), pitch_slice, e, extent)
    }
}

fn side_handle(s: CopySide) -> Option<u64> {
    match s {
        CopySide::Array(a) => a.named(),
        CopySide::Device { .. } => None,
    }
}

fn resource_out(h: CtxHandle, res: Resource) -> Resource {
    match res {
        Resource::Array(id) => Resource::Array(object(h, id)),
        Resource::Mipmapped(id) => Resource::Mipmapped(object(h, id)),
        r => r,
    }
}

/// The endpoint of one side of a copy of `extent`, checked: the region lies inside the
/// array, or inside one allocation the copy may read (or `write`).
fn endpoint(
    c: &crate::context::Inner,
    side: CopySide,
    at: [u64; 3],
    extent: [u64; 3],
    write: bool,
) -> Result<Endpoint> {
    let end = |i: usize| at[i].checked_add(extent[i]).ok_or(CuError::InvalidValue);
    match side {
        CopySide::Array(a) => {
            let arr = c.array(a.id())?;
            for (i, lim) in arr.extent().into_iter().enumerate() {
                if end(i)? > lim {
                    return Err(CuError::InvalidValue);
                }
            }
            Ok(Endpoint { surf: arr.surface(), at })
        }
        CopySide::Device { ptr, pitch, height } => {
            let [w, rows, d] = extent;
            if rows > 1 && pitch < at[0] + w || d > 1 && height < at[1] + rows {
                return Err(CuError::InvalidValue);
            }
            let slice = pitch.checked_mul(height).ok_or(CuError::InvalidValue)?;
            let first = at[2]
                .checked_mul(slice)
                .and_then(|z| z.checked_add(at[1].checked_mul(pitch)?))
                .and_then(|o| o.checked_add(at[0]))
                .and_then(|o| ptr.checked_add(o))
                .ok_or(CuError::InvalidValue)?;
            if w != 0 && rows != 0 && d != 0 {
                let len = (d - 1) * slice + (rows - 1) * pitch + w;
                c.check_range(first, len, write)?;
            }
            Ok(Endpoint { surf: Surface::Pitch { ptr, pitch, slice }, at })
        }
    }
}

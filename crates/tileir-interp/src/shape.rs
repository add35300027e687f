//! Tile construction and shape manipulation: broadcast, reshape, permute, cat, extract,
//! iota, pack/unpack, offset.

use crate::arith::OpResult;
use crate::value::{canon, Data, Tile};
use tileir_ir::{NumType, TileElem};

/// Row-major strides of `shape`.
pub fn strides_of(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// For every element of `out_shape` (row-major), the source index `f(coords)`.
fn index_map(out_shape: &[usize], mut f: impl FnMut(&[usize]) -> usize) -> Vec<usize> {
    let n: usize = out_shape.iter().product();
    let mut idx = Vec::with_capacity(n);
    let mut c = vec![0usize; out_shape.len()];
    for _ in 0..n {
        idx.push(f(&c));
        for d in (0..c.len()).rev() {
            c[d] += 1;
            if c[d] < out_shape[d] {
                break;
            }
            c[d] = 0;
        }
    }
    idx
}

/// `broadcast` to `shape` (same rank; source dims equal or 1).
pub fn broadcast(a: &Tile, shape: &[usize]) -> OpResult<Tile> {
    if a.shape.is_empty() && a.len() == 1 {
        // A scalar (rank 0; the bare scalars of nv_tileaa functions) splats to any shape.
        return Ok(Tile {
            shape: shape.to_vec(),
            elem: a.elem,
            data: a.data.gather(&vec![0; shape.iter().product()]),
        });
    }
    if a.shape.len() != shape.len() {
        return Err(format!(
            "broadcast from rank {} to rank {}",
            a.shape.len(),
            shape.len()
        ));
    }
    for (s, d) in a.shape.iter().zip(shape) {
        if s != d && *s != 1 {
            return Err(format!("cannot broadcast dimension {s} to {d}"));
        }
    }
    if a.shape == shape {
        return Ok(a.clone());
    }
    let st = strides_of(&a.shape);
    let idx = index_map(shape, |c| {
        c.iter()
            .enumerate()
            .map(|(d, &x)| if a.shape[d] == 1 { 0 } else { x * st[d] })
            .sum()
    });
    Ok(Tile {
        shape: shape.to_vec(),
        elem: a.elem,
        data: a.data.gather(&idx),
    })
}

/// `reshape` (row-major order kept).
pub fn reshape(a: &Tile, shape: &[usize]) -> OpResult<Tile> {
    let n: usize = shape.iter().product();
    if n != a.len() {
        return Err(format!("reshape of {} elements to {} elements", a.len(), n));
    }
    Ok(Tile {
        shape: shape.to_vec(),
        elem: a.elem,
        data: a.data.clone(),
    })
}

/// `permute`: result dimension `i` is source dimension `perm[i]`.
pub fn permute(a: &Tile, perm: &[i64]) -> OpResult<Tile> {
    let r = a.shape.len();
    let mut seen = vec![false; r];
    if perm.len() != r
        || perm
            .iter()
            .any(|&p| p < 0 || p as usize >= r || std::mem::replace(&mut seen[p as usize], true))
    {
        return Err(format!("invalid permutation {perm:?} for rank {r}"));
    }
    let st = strides_of(&a.shape);
    let shape: Vec<usize> = perm.iter().map(|&p| a.shape[p as usize]).collect();
    let idx = index_map(&shape, |c| {
        c.iter()
            .enumerate()
            .map(|(i, &x)| x * st[perm[i] as usize])
            .sum()
    });
    Ok(Tile {
        shape,
        elem: a.elem,
        data: a.data.gather(&idx),
    })
}

/// `cat` along `dim`.
pub fn cat(a: &Tile, b: &Tile, dim: usize) -> OpResult<Tile> {
    if a.shape.len() != b.shape.len() || dim >= a.shape.len() {
        return Err(format!(
            "cat of ranks {} and {} along dimension {dim}",
            a.shape.len(),
            b.shape.len()
        ));
    }
    let mut shape = a.shape.clone();
    shape[dim] += b.shape[dim];
    // Outer = product of dims before `dim`; each outer slice is a contiguous chunk of each.
    let outer: usize = a.shape[..dim].iter().product();
    let ca = a.len() / outer.max(1);
    let cb = b.len() / outer.max(1);
    let mut data = Data::with_capacity(a.elem, a.len() + b.len());
    for o in 0..outer {
        data.extend_from(&a.data, o * ca..(o + 1) * ca);
        data.extend_from(&b.data, o * cb..(o + 1) * cb);
    }
    Ok(Tile {
        shape,
        elem: a.elem,
        data,
    })
}

/// `extract`: slice number `idx[d]` of size `shape[d]` along every dimension.
pub fn extract(a: &Tile, idx: &[u64], shape: &[usize]) -> OpResult<Tile> {
    if idx.len() != a.shape.len() || shape.len() != a.shape.len() {
        return Err(format!(
            "extract needs {} indices, got {}",
            a.shape.len(),
            idx.len()
        ));
    }
    let mut origin = Vec::with_capacity(idx.len());
    for d in 0..idx.len() {
        let o = idx[d]
            .checked_mul(shape[d] as u64)
            .filter(|&o| o + shape[d] as u64 <= a.shape[d] as u64);
        match o {
            Some(o) => origin.push(o as usize),
            None => {
                return Err(format!(
                    "extract index {} along dimension {d} is out of range: {} slices of size {} fit in {} (undefined behavior)",
                    idx[d],
                    a.shape[d] / shape[d].max(1),
                    shape[d],
                    a.shape[d]
                ))
            }
        }
    }
    let st = strides_of(&a.shape);
    let map = index_map(shape, |c| {
        c.iter()
            .enumerate()
            .map(|(d, &x)| (x + origin[d]) * st[d])
            .sum()
    });
    Ok(Tile {
        shape: shape.to_vec(),
        elem: a.elem,
        data: a.data.gather(&map),
    })
}

/// `iota`: `0, 1, …, n−1` (wrapped to the width; values are read unsigned).
pub fn iota(shape: &[usize], t: NumType) -> Tile {
    let n: usize = shape.iter().product();
    let w = t.bit_width();
    Tile {
        shape: shape.to_vec(),
        elem: TileElem::Num(t),
        data: Data::Int((0..n as i64).map(|i| canon(w, i)).collect()),
    }
}

/// Bits one element takes in a packed stream (i1 counts as 1 bit).
fn packed_bits(t: NumType) -> u32 {
    t.bit_width()
}

/// `pack`: the bit patterns of a rank-1 tile, concatenated least-significant bit first, as
/// bytes (i8 tile).
pub fn pack(a: &Tile, out_len: usize) -> OpResult<Tile> {
    let w = packed_bits(a.num()) as usize;
    if a.len() * w != out_len * 8 {
        return Err(format!(
            "pack of {} {}-bit elements into {} bytes",
            a.len(),
            w,
            out_len
        ));
    }
    let mut bytes = vec![0u8; out_len];
    for (i, b) in a.to_bits().into_iter().enumerate() {
        for k in 0..w {
            if (b >> k) & 1 == 1 {
                let bit = i * w + k;
                bytes[bit / 8] |= 1 << (bit % 8);
            }
        }
    }
    Ok(Tile::from_bits(
        vec![out_len],
        TileElem::Num(NumType::I8),
        bytes.into_iter().map(u64::from),
    ))
}

/// `unpack`: the inverse of [`pack`].
pub fn unpack(a: &Tile, to: NumType, out_len: usize) -> OpResult<Tile> {
    let w = packed_bits(to) as usize;
    if a.len() * 8 != out_len * w {
        return Err(format!(
            "unpack of {} bytes into {} {}-bit elements",
            a.len(),
            out_len,
            w
        ));
    }
    let bytes = a.to_bits();
    let bits = (0..out_len).map(|i| {
        let mut v = 0u64;
        for k in 0..w {
            let bit = i * w + k;
            v |= ((bytes[bit / 8] >> (bit % 8)) & 1) << k;
        }
        v
    });
    Ok(Tile::from_bits(vec![out_len], TileElem::Num(to), bits))
}

/// `offset`: `ptr + offset × sizeof(pointee)` (offset signed, wrapping). For 4-bit pointees
/// the offset counts half bytes (see [`crate::value::SubBytePtr`]).
pub fn offset(p: &Tile, o: &Tile) -> OpResult<Tile> {
    let Data::Ptr(ptrs) = &p.data else {
        return Err("offset needs a pointer tile".into());
    };
    let offs = o.ints();
    let size = p.num().storage_bytes() as i64;
    let n = if ptrs.len() == offs.len() || offs.len() == 1 {
        ptrs.len()
    } else if ptrs.len() == 1 {
        offs.len()
    } else {
        return Err(format!(
            "offset shapes differ: {} pointers, {} offsets",
            ptrs.len(),
            offs.len()
        ));
    };
    let at = |v: &[i64], i: usize| if v.len() == 1 { v[0] } else { v[i] };
    let sub_byte = crate::value::is_sub_byte(p.num());
    let data = (0..n)
        .map(|i| {
            let base = if ptrs.len() == 1 { ptrs[0] } else { ptrs[i] };
            if sub_byte {
                let b = crate::value::SubBytePtr::decode(base);
                crate::value::SubBytePtr::from_nibble_index(
                    b.nibble_index().wrapping_add(at(offs, i) as u64),
                )
                .encode()
            } else {
                base.wrapping_add(at(offs, i).wrapping_mul(size) as u64)
            }
        })
        .collect();
    let shape = if p.len() == n {
        p.shape.clone()
    } else {
        o.shape.clone()
    };
    Ok(Tile {
        shape,
        elem: p.elem,
        data: Data::Ptr(data),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(shape: &[usize], v: &[i64]) -> Tile {
        Tile {
            shape: shape.to_vec(),
            elem: TileElem::Num(NumType::I32),
            data: Data::Int(v.to_vec()),
        }
    }

    #[test]
    fn permute_cat_extract_broadcast() {
        let a = t(&[2, 3], &[0, 1, 2, 3, 4, 5]);
        assert_eq!(permute(&a, &[1, 0]).unwrap().ints(), &[0, 3, 1, 4, 2, 5]);
        assert_eq!(
            cat(&a, &a, 1).unwrap().ints(),
            &[0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5]
        );
        assert_eq!(cat(&a, &a, 0).unwrap().shape, vec![4, 3]);
        let b = t(&[4, 4], &(0..16).collect::<Vec<_>>());
        assert_eq!(
            extract(&b, &[1, 0], &[2, 2]).unwrap().ints(),
            &[8, 9, 12, 13]
        );
        assert!(extract(&b, &[2, 0], &[2, 2]).is_err());
        assert_eq!(
            broadcast(&t(&[1, 2], &[7, 8]), &[2, 2]).unwrap().ints(),
            &[7, 8, 7, 8]
        );
    }

    #[test]
    fn pack_unpack_round_trip() {
        let a = Tile {
            shape: vec![4],
            elem: TileElem::Num(NumType::I4),
            data: Data::Int(vec![1, -1, 7, -8]),
        };
        let p = pack(&a, 2).unwrap();
        assert_eq!(p.to_bits(), vec![0xf1, 0x87]);
        assert_eq!(unpack(&p, NumType::I4, 4).unwrap(), a);
    }
}

//! Runtime calls: `vprintf` (formats into the launch's output), `__assertfail` (an error
//! carrying the assertion's message and location), and the device heap's `malloc`/`free`
//! (on the launch's [`GlobalMem`](crate::mem::GlobalMem), capacity
//! [`LaunchConfig::malloc_heap_bytes`](super::LaunchConfig::malloc_heap_bytes)).

use super::cta::Env;
use super::warp::Warp;
use crate::error::{EmuError, ErrorKind, Result};
use crate::mem::to_generic;
use crate::program::{CallFn, Inst, Space};

/// Runs one call for one lane. Arguments are `.param` variables in the lane's local memory.
pub(crate) fn call(w: &mut Warp, env: &mut Env<'_>, inst: &Inst, lane: usize, func: CallFn, args: &[u64], ret: Option<u64>) -> Result<()> {
    let wid = w.id;
    let err = |env: &Env<'_>, m: String| EmuError::new(ErrorKind::Memory, inst.line, format!("{}: {m}", env.who(wid, lane)));
    let arg = |w: &mut Warp, env: &mut Env<'_>, i: usize, size: u64| -> std::result::Result<u64, String> {
        let a = *args.get(i).ok_or_else(|| format!("call passes {} argument(s), the function takes more", args.len()))?;
        w.load_generic(env, lane, to_generic(Space::Local, a), size)
    };
    match func {
        CallFn::Vprintf => {
            let fmt_ptr = arg(w, env, 0, 8).map_err(|m| err(env, m))?;
            let mut ap = arg(w, env, 1, 8).map_err(|m| err(env, m))?;
            let fmt = w.read_cstr(env, lane, fmt_ptr).map_err(|m| err(env, m))?;
            let text = format(w, env, lane, &fmt, &mut ap).map_err(|m| err(env, m))?;
            env.out.push_str(&text);
            if let Some(r) = ret {
                let lb = w.local_bytes;
                let off = lane * lb + r as usize;
                if let Some(s) = w.local.get_mut(off..off + 4) {
                    s.copy_from_slice(&(text.len() as u32).to_le_bytes());
                }
            }
            Ok(())
        }
        CallFn::AssertFail => {
            let msg = arg(w, env, 0, 8).and_then(|p| w.read_cstr(env, lane, p)).unwrap_or_default();
            let file = arg(w, env, 1, 8).and_then(|p| w.read_cstr(env, lane, p)).unwrap_or_default();
            let fline = arg(w, env, 2, 4).unwrap_or(0);
            let func = arg(w, env, 3, 8).and_then(|p| w.read_cstr(env, lane, p)).unwrap_or_default();
            Err(EmuError::new(ErrorKind::Trap, inst.line, format!("{}: assertion '{msg}' failed at {file}:{fline} in {func}", env.who(wid, lane))))
        }
        CallFn::Malloc => {
            let size = arg(w, env, 0, 8).map_err(|m| err(env, m))?;
            let p = env.ctx.global.malloc(size, env.ctx.cfg.malloc_heap_bytes);
            env.effects += 1;
            if let Some(r) = ret {
                w.store_pub(env, Space::Local, lane, r, 8, p).map_err(|m| err(env, format!("malloc's result: {m}")))?;
            }
            Ok(())
        }
        CallFn::Free => {
            let p = arg(w, env, 0, 8).map_err(|m| err(env, m))?;
            env.effects += 1;
            env.ctx.global.free(p).map_err(|f| err(env, f.0))
        }
    }
}

/// printf formatting of the CUDA argument buffer: each argument aligned to its size.
fn format(w: &mut Warp, env: &mut Env<'_>, lane: usize, fmt: &str, ap: &mut u64) -> std::result::Result<String, String> {
    let mut out = String::new();
    let mut chars = fmt.chars().peekable();
    let mut next = |w: &mut Warp, env: &mut Env<'_>, size: u64| -> std::result::Result<u64, String> {
        *ap = ap.div_ceil(size) * size;
        let v = w.load_generic(env, lane, *ap, size)?;
        *ap += size;
        Ok(v)
    };
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut spec = String::new();
        let mut long = 0;
        let conv = loop {
            match chars.next() {
                None => return Ok(out),
                Some('l') => long += 1,
                Some('h') | Some('z') | Some('j') | Some('t') => {}
                Some(ch) if "-+ #0123456789.".contains(ch) => spec.push(ch),
                Some(ch) => break ch,
            }
        };
        let width: usize = spec.trim_start_matches(['-', '+', ' ', '#', '0']).split('.').next().and_then(|s| s.parse().ok()).unwrap_or(0);
        let prec: Option<usize> = spec.split_once('.').and_then(|(_, p)| p.parse().ok());
        let left = spec.starts_with('-');
        let zero = spec.starts_with('0');
        let body = match conv {
            '%' => "%".to_string(),
            'd' | 'i' => {
                let v = if long > 0 { next(w, env, 8)? as i64 } else { next(w, env, 4)? as u32 as i32 as i64 };
                v.to_string()
            }
            'u' => (if long > 0 { next(w, env, 8)? } else { next(w, env, 4)? & 0xffff_ffff }).to_string(),
            'x' => format!("{:x}", if long > 0 { next(w, env, 8)? } else { next(w, env, 4)? & 0xffff_ffff }),
            'X' => format!("{:X}", if long > 0 { next(w, env, 8)? } else { next(w, env, 4)? & 0xffff_ffff }),
            'c' => ((next(w, env, 4)? as u8) as char).to_string(),
            'p' => format!("0x{:x}", next(w, env, 8)?),
            's' => {
                let p = next(w, env, 8)?;
                w.read_cstr(env, lane, p)?
            }
            'f' | 'F' => format!("{:.*}", prec.unwrap_or(6), f64::from_bits(next(w, env, 8)?)),
            'e' | 'E' => {
                let s = format!("{:.*e}", prec.unwrap_or(6), f64::from_bits(next(w, env, 8)?));
                // C prints at least two exponent digits with a sign.
                match s.split_once('e') {
                    Some((m, e)) => {
                        let (sign, digits) = if let Some(d) = e.strip_prefix('-') { ('-', d) } else { ('+', e) };
                        format!("{m}e{sign}{digits:0>2}")
                    }
                    None => s,
                }
            }
            'g' | 'G' => format!("{}", f64::from_bits(next(w, env, 8)?)),
            other => format!("%{other}"),
        };
        if body.len() < width {
            let pad = width - body.len();
            if left {
                out.push_str(&body);
                out.push_str(&" ".repeat(pad));
            } else if zero && conv != 's' {
                let (sign, digits) = if let Some(d) = body.strip_prefix('-') { ("-", d) } else { ("", body.as_str()) };
                out.push_str(sign);
                out.push_str(&"0".repeat(pad));
                out.push_str(digits);
            } else {
                out.push_str(&" ".repeat(pad));
                out.push_str(&body);
            }
        } else {
            out.push_str(&body);
        }
    }
    Ok(out)
}

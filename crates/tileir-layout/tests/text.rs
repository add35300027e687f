//! Textual form round trips and parse errors.

use tileir_layout::*;

#[test]
fn display_blocked() {
    let l = blocked(&[32, 16], &[1, 4], &[8, 4], &[4, 1], &[1, 0]).unwrap();
    assert_eq!(
        l.to_string(),
        "#tileas.linear<register=[[0,1],[0,2]], lane=[[0,4],[0,8],[1,0],[2,0],[4,0]], warp=[[8,0],[16,0]], shape=[32,16]>"
    );
    let one_warp = blocked(&[8, 4], &[1, 1], &[8, 4], &[1, 1], &[1, 0]).unwrap();
    assert_eq!(
        one_warp.to_string(),
        "#tileas.linear<register=[], lane=[[0,1],[0,2],[1,0],[2,0],[4,0]], warp=[], shape=[8,4]>"
    );
}

#[test]
fn round_trips() {
    let layouts = vec![
        blocked(&[64, 64], &[1, 4], &[8, 4], &[4, 1], &[1, 0]).unwrap(),
        mma_sync_accumulator([64, 32], [2, 2]).unwrap(),
        mma_sync_operand_a([32, 32], 16, [2, 2]).unwrap(),
        nvmma_shared([64, 64], 16, 128, false).unwrap(),
        nvmma_shared([64, 64], 16, 128, false)
            .unwrap()
            .invert()
            .unwrap(),
        slice_of(
            &blocked(&[64, 64], &[1, 4], &[8, 4], &[4, 1], &[1, 0]).unwrap(),
            1,
        )
        .unwrap(),
    ];
    for l in layouts {
        let s = l.to_string();
        let back: LinearLayout = s.parse().unwrap_or_else(|e| panic!("{s}: {e}"));
        assert_eq!(back, l, "{s}");
        assert_eq!(back.to_string(), s);
    }
    let inv = nvmma_shared([8, 64], 16, 128, false)
        .unwrap()
        .invert()
        .unwrap();
    assert!(inv.to_string().contains("out=[offset=512]"), "{inv}");
}

#[test]
fn blocked_short_form() {
    let b = Blocked {
        size_per_thread: vec![1, 4],
        threads_per_warp: vec![8, 4],
        warps_per_cta: vec![4, 1],
        order: vec![1, 0],
    };
    let s = b.to_string();
    assert_eq!(s, "#tileas.blocked<size_per_thread=[1,4], threads_per_warp=[8,4], warps_per_cta=[4,1], order=[1,0]>");
    assert_eq!(s.parse::<Blocked>().unwrap(), b);
    assert_eq!(
        b.to_linear(&[64, 64]).unwrap(),
        blocked(&[64, 64], &[1, 4], &[8, 4], &[4, 1], &[1, 0]).unwrap()
    );
    // Recognizing blocked layouts.
    for (shape, spt, tpw, wpc, order) in [
        (vec![64, 64], vec![1, 4], vec![8, 4], vec![4, 1], vec![1, 0]),
        (vec![8, 4], vec![1, 1], vec![8, 4], vec![4, 1], vec![1, 0]),
        (vec![32, 8], vec![2, 1], vec![16, 2], vec![1, 2], vec![0, 1]),
        (
            vec![4, 8, 16],
            vec![1, 1, 4],
            vec![2, 4, 4],
            vec![2, 1, 1],
            vec![2, 1, 0],
        ),
        (vec![128], vec![4], vec![32], vec![4], vec![0]),
    ] {
        let l = blocked(&shape, &spt, &tpw, &wpc, &order).unwrap();
        let b = Blocked::from_linear(&l).unwrap_or_else(|| panic!("not recognized: {l}"));
        assert_eq!(b.to_linear(&shape).unwrap(), l);
    }
    // One 16x8 mma.sync accumulator happens to be blocked (2 columns per thread, rows repeat);
    // the A fragment is not (its registers step M before K).
    let acc = Blocked::from_linear(&mma_sync_accumulator([16, 8], [1, 1]).unwrap()).unwrap();
    assert_eq!(acc.size_per_thread, vec![1, 2]);
    assert_eq!(
        Blocked::from_linear(&mma_sync_operand_a([16, 16], 16, [1, 1]).unwrap()),
        None
    );
    let e = "#tileas.blocked<size_per_thread=[1,4], order=[1,0]>"
        .parse::<Blocked>()
        .unwrap_err();
    assert!(e.0.contains("missing 'threads_per_warp'"), "{e}");
}

#[test]
fn parse_errors() {
    let cases = [
        (
            "#tileas.linear<register=[[0,1]], shape=[4,4]",
            "expected ','",
        ),
        ("#tileas.lin<shape=[4]>", "expected '#tileas.linear<'"),
        ("#tileas.linear<register=[[0,1]]>", "missing 'shape'"),
        (
            "#tileas.linear<thread=[[1]], shape=[4]>",
            "unknown dimension 'thread'",
        ),
        (
            "#tileas.linear<register=[[0,5]], shape=[4,4]>",
            "out of range",
        ),
        ("#tileas.linear<register=[[1]], shape=[6]>", "power of two"),
        (
            "#tileas.linear<register=[[1,0]], shape=[4]>",
            "has 2 coordinates, expected 1",
        ),
        (
            "#tileas.linear<register=[[1]], register=[[2]], shape=[4]>",
            "given twice",
        ),
        ("#tileas.linear<register=[[x]], shape=[4]>", "expected '='"),
        ("#tileas.linear<shape=[4]> trailing", "unexpected text"),
        (
            "#tileas.linear<register=[[99999999999]], shape=[4]>",
            "out of range",
        ),
    ];
    for (text, want) in cases {
        let e = text.parse::<LinearLayout>().unwrap_err();
        assert!(e.0.contains(want), "{text}: got '{e}', want '{want}'");
    }
    let e = "#tileas.linear<register=[[0,1]], shape=[4,4]"
        .parse::<LinearLayout>()
        .unwrap_err();
    assert!(e.0.contains("offset 44"), "{e}");
}

//! The test vectors of docs/table-order.md: the specification and the code
//! agree.

use knuffle_table::{EpochOrder, TableOrder, table_order};

#[test]
fn permutations() {
    assert_eq!(
        table_order("friday poker", 10),
        [6, 4, 1, 8, 3, 2, 0, 5, 7, 9]
    );
    assert_eq!(table_order("", 5), [4, 1, 0, 2, 3]);
    assert_eq!(
        table_order("42", 20),
        [
            2, 12, 1, 0, 9, 7, 5, 4, 11, 8, 13, 15, 17, 6, 3, 14, 16, 10, 18, 19
        ]
    );
}

#[test]
fn labels() {
    let order = TableOrder::new("friday poker");
    assert_eq!(
        order.labels(0, 6),
        [
            2519465350, 1516506482, 2360106229, 2197290069, 359571723, 3355490449
        ]
    );
    assert_eq!(
        order.labels(1_000_000, 3),
        [3573169330, 3987142846, 1043212964]
    );
}

#[test]
fn ties() {
    let order = TableOrder::new("friday poker");
    let labels = order.labels(0, 200_000);
    assert_eq!(
        (labels[108_118], labels[158_816]),
        (514_835_629, 514_835_629)
    );
    let mut rows = [108_118u64, 158_816];
    order.order_ties(514_835_629, &mut rows);
    assert_eq!(rows, [158_816, 108_118]);
    let whole = table_order("friday poker", 200_000);
    assert_eq!(whole[24_036..24_038], [158_816, 108_118]);
    let mut four = [3u64, 8, 15, 16];
    order.order_ties(1, &mut four);
    assert_eq!(four, [16, 8, 3, 15]);
    let mut four = [3u64, 8, 15, 16];
    order.order_ties(7, &mut four);
    assert_eq!(four, [3, 8, 15, 16]);
}

#[test]
fn epochs() {
    let epoch = |seed: &str, e: u64, n: u64| -> Vec<u64> {
        EpochOrder::new(seed, e, n).unwrap().cursor(0).collect()
    };
    assert_eq!(
        epoch("friday poker", 0, 10),
        table_order("friday poker", 10)
    );
    assert_eq!(epoch("friday poker", 1, 10), [6, 4, 2, 7, 5, 8, 3, 0, 1, 9]);
    assert_eq!(epoch("friday poker", 2, 10), [3, 7, 2, 8, 4, 0, 5, 9, 6, 1]);
    assert_eq!(
        epoch("friday poker", 2, 10),
        table_order("knuffle epoch 2: friday poker", 10)
    );
    let mut out = [0u64; 5];
    EpochOrder::new("42", 5, 1_000_000)
        .unwrap()
        .fill(500_000, &mut out);
    assert_eq!(out, [439_433, 971_391, 9003, 590_176, 906_223]);
}

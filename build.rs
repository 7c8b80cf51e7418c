//! Writes the tables `src/graph/small.rs` reads to find the isomorphism class
//! of a graph on 7 labelled vertices without loops.
//!
//! A graph is its 21-bit edge code: edge `u v` with `u < v` at bit
//! `v (v - 1) / 2 + u`, so the low 15 bits are the graph on slots `0 .. 6` and
//! the top 6 the neighbours of slot 6. Classes of graphs on 7 slots are
//! numbered in the order of their smallest codes; every class is filled with
//! the images of its smallest code under all 5,040 permutations, so two codes
//! share a class exactly when a permutation maps one onto the other. There are
//! 1,044 classes (A000088(7)).
//!
//! One table over all 2^21 codes would be 4 MiB, read at random, and out of
//! the processor's caches whenever anything else has run. Instead, small
//! tables (165 KiB in all), read one after the other:
//!
//! * `small_class6.bin` (u8) and `small_to_first.bin` (u16 LE), per code on
//!   slots `0 .. 6` (2^15 of them): its class `c` among those graphs (one of
//!   156, A000088(6)), and the index `k` of a permutation of the six slots
//!   taking it to the smallest code of that class;
//! * `small_moved.bin`, per `k` and set `s` of slots `0 .. 6` (720 x 64 bytes):
//!   the image of `s` under permutation `k`;
//! * `small_joined.bin`, per class of the six slots and neighbour set of slot
//!   6 (156 x 64, u16 LE): the class of the graph made of that class's
//!   smallest code and that neighbour set;
//! * `small_reps7.bin`, per class on 7 slots (u32 LE): its smallest code.
//!
//! Permuting slots `0 .. 6` and fixing slot 6 maps a graph to an isomorphic
//! one, so the class of a code is `joined[c][moved[k][top]]`, where `(c, k)` is
//! the entry of its low 15 bits and `top` its top 6 bits.

use std::env;
use std::fs;
use std::path::Path;

const VERTICES: usize = 7;
const EDGE_BITS: usize = VERTICES * (VERTICES - 1) / 2;
/// Codes of the graphs on slots `0 .. 6`: edges `u v` with `v < 6`.
const LOW: usize = 1 << 15;
const UNSET: u16 = u16::MAX;

/// The bit of edge `u v`.
fn bit(u: usize, v: usize) -> usize {
    let (u, v) = (u.min(v), u.max(v));
    v * (v - 1) / 2 + u
}

/// Every permutation of `0 .. n`, in lexicographic order.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    let mut p: Vec<usize> = (0..n).collect();
    let mut out = vec![p.clone()];
    loop {
        // The next permutation in lexicographic order.
        let Some(i) = (0..n - 1).rev().find(|&i| p[i] < p[i + 1]) else {
            return out;
        };
        let j = (i + 1..n).rev().find(|&j| p[j] > p[i]).unwrap();
        p.swap(i, j);
        p[i + 1..].reverse();
        out.push(p.clone());
    }
}

/// Where permutation `p` sends each edge bit of a graph on `VERTICES` slots.
fn edge_map(p: &[usize]) -> [u8; EDGE_BITS] {
    let mut map = [0u8; EDGE_BITS];
    for v in 0..VERTICES {
        for u in 0..v {
            map[bit(u, v)] = bit(p[u], p[v]) as u8;
        }
    }
    map
}

/// `code` with its edge bits moved by `map`.
fn apply(map: &[u8; EDGE_BITS], code: usize) -> usize {
    let mut image = 0usize;
    let mut b = code;
    while b != 0 {
        image |= 1 << map[b.trailing_zeros() as usize];
        b &= b - 1;
    }
    image
}

/// Little-endian bytes of `xs`.
fn bytes<T: Copy, const N: usize>(xs: &[T], le: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    xs.iter().flat_map(|&x| le(x)).collect()
}

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    // The classes of the graphs on 7 slots: each class filled with the images
    // of its smallest code under every permutation.
    let maps: Vec<[u8; EDGE_BITS]> = permutations(VERTICES).iter().map(|p| edge_map(p)).collect();
    let mut class7 = vec![UNSET; 1 << EDGE_BITS];
    let mut next = 0u16;
    for code in 0..class7.len() {
        if class7[code] == UNSET {
            for map in &maps {
                class7[apply(map, code)] = next;
            }
            next += 1;
        }
    }
    assert_eq!(next, 1044, "A000088(7) graphs on 7 vertices");

    // The graphs on slots 0..6: their class, and a permutation (fixing slot
    // 6) that takes each to the smallest code of its class.
    let six = permutations(VERTICES - 1);
    let maps6: Vec<[u8; EDGE_BITS]> = six
        .iter()
        .map(|p| edge_map(&[&p[..], &[VERTICES - 1]].concat()))
        .collect();
    // The index of each permutation's inverse.
    let inverse: Vec<u16> = six
        .iter()
        .map(|p| {
            let mut inv = vec![0; VERTICES - 1];
            for (i, &pi) in p.iter().enumerate() {
                inv[pi] = i;
            }
            six.iter().position(|q| *q == inv).unwrap() as u16
        })
        .collect();
    let (mut class6, mut to_first) = (vec![u8::MAX; LOW], vec![UNSET; LOW]);
    let mut reps6 = Vec::new();
    for code in 0..LOW {
        if to_first[code] != UNSET {
            continue;
        }
        let c6 = reps6.len() as u8;
        reps6.push(code);
        for (k, map) in maps6.iter().enumerate() {
            let image = apply(map, code);
            if to_first[image] == UNSET {
                // Permutation `k` takes `code` to `image`: its inverse takes
                // `image` back.
                to_first[image] = inverse[k];
                class6[image] = c6;
            }
        }
    }
    assert_eq!(reps6.len(), 156, "A000088(6) graphs on 6 vertices");
    // Each permutation of slots 0..6 applied to each set of them.
    let moved: Vec<u8> = six
        .iter()
        .flat_map(|p| {
            (0..1usize << (VERTICES - 1)).map(move |set| {
                (0..VERTICES - 1)
                    .filter(|&u| set >> u & 1 == 1)
                    .fold(0u8, |m, u| m | 1 << p[u])
            })
        })
        .collect();
    // The class of each graph on 6 slots' smallest code with each neighbour
    // set of slot 6.
    let joined: Vec<u16> = reps6
        .iter()
        .flat_map(|&rep| (0..1usize << (VERTICES - 1)).map(move |nb| (rep, nb)))
        .map(|(rep, nb)| class7[rep | nb << LOW.trailing_zeros()])
        .collect();

    let out = Path::new(&env::var("OUT_DIR").unwrap()).to_path_buf();
    // The smallest code of each class on 7 slots.
    let mut reps7 = vec![u32::MAX; next as usize];
    for (code, &c) in class7.iter().enumerate().rev() {
        reps7[c as usize] = code as u32;
    }
    fs::write(out.join("small_class6.bin"), class6).unwrap();
    fs::write(
        out.join("small_to_first.bin"),
        bytes(&to_first, u16::to_le_bytes),
    )
    .unwrap();
    fs::write(out.join("small_reps7.bin"), bytes(&reps7, u32::to_le_bytes)).unwrap();
    fs::write(out.join("small_moved.bin"), moved).unwrap();
    fs::write(
        out.join("small_joined.bin"),
        bytes(&joined, u16::to_le_bytes),
    )
    .unwrap();
}

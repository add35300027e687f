//! Typed `u32` ids and the arenas they index.
//!
//! Every IR entity (op, value, block, region, interned type, interned location) is
//! named by a small id rather than a pointer: ids keep the arena free of borrow
//! fights, make structures `Copy` and small, and an id of one kind can never index
//! an arena of another kind.

use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;
use std::marker::PhantomData;

/// A `u32` newtype usable as an arena key.
pub trait EntityId: Copy + Eq + Hash + fmt::Debug {
    /// Builds the id for arena slot `index`.
    fn new(index: usize) -> Self;
    /// The arena slot this id names.
    fn index(self) -> usize;
}

/// Declares an id type whose `Display` matches its textual prefix (`op3`, `v7`).
#[macro_export]
macro_rules! entity_id {
    ($(#[$meta:meta])* $name:ident, $prefix:literal) => {
        $(#[$meta])*
        #[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(u32);
        impl $crate::entity::EntityId for $name {
            fn new(index: usize) -> Self {
                $name(u32::try_from(index).expect(concat!("too many ", $prefix, " entities")))
            }
            fn index(self) -> usize {
                self.0 as usize
            }
        }
        impl ::std::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

/// An arena that allocates ids. Indexing with a raw `usize` is impossible on purpose.
#[derive(Clone)]
pub struct PrimaryMap<K: EntityId, V> {
    items: Vec<V>,
    _key: PhantomData<K>,
}

impl<K: EntityId, V> Default for PrimaryMap<K, V> {
    fn default() -> Self {
        PrimaryMap { items: Vec::new(), _key: PhantomData }
    }
}

impl<K: EntityId, V> PrimaryMap<K, V> {
    /// Appends `value` and returns its id.
    pub fn push(&mut self, value: V) -> K {
        let id = K::new(self.items.len());
        self.items.push(value);
        id
    }
    /// Number of entities allocated.
    pub fn len(&self) -> usize {
        self.items.len()
    }
    /// True when nothing was allocated.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    /// The entity, if `id` is in range (the verifier's handle check uses this).
    pub fn get(&self, id: K) -> Option<&V> {
        self.items.get(id.index())
    }
    /// True when `id` names an allocated entity.
    pub fn contains(&self, id: K) -> bool {
        id.index() < self.items.len()
    }
    /// All ids with their entities, in allocation order.
    pub fn iter(&self) -> impl Iterator<Item = (K, &V)> {
        self.items.iter().enumerate().map(|(i, v)| (K::new(i), v))
    }
    /// All ids, in allocation order.
    pub fn keys(&self) -> impl Iterator<Item = K> {
        (0..self.items.len()).map(K::new)
    }
}

impl<K: EntityId, V> std::ops::Index<K> for PrimaryMap<K, V> {
    type Output = V;
    fn index(&self, id: K) -> &V {
        &self.items[id.index()]
    }
}

impl<K: EntityId, V> std::ops::IndexMut<K> for PrimaryMap<K, V> {
    fn index_mut(&mut self, id: K) -> &mut V {
        &mut self.items[id.index()]
    }
}

/// An arena that hands out one id per distinct value (interning): equal values get equal ids,
/// so comparing two interned types is comparing two integers.
#[derive(Clone)]
pub struct UniqueArena<K: EntityId, V: Eq + Hash + Clone> {
    items: Vec<V>,
    lookup: HashMap<V, K>,
}

impl<K: EntityId, V: Eq + Hash + Clone> Default for UniqueArena<K, V> {
    fn default() -> Self {
        UniqueArena { items: Vec::new(), lookup: HashMap::new() }
    }
}

impl<K: EntityId, V: Eq + Hash + Clone> UniqueArena<K, V> {
    /// The id of `value`, allocating it if it is new. Ids follow first-insertion order,
    /// so interning is deterministic whatever the hasher does.
    pub fn intern(&mut self, value: V) -> K {
        if let Some(&id) = self.lookup.get(&value) {
            return id;
        }
        let id = K::new(self.items.len());
        self.items.push(value.clone());
        self.lookup.insert(value, id);
        id
    }
    /// The id of `value` if it was interned.
    pub fn lookup(&self, value: &V) -> Option<K> {
        self.lookup.get(value).copied()
    }
    /// The value behind `id`, if in range.
    pub fn get(&self, id: K) -> Option<&V> {
        self.items.get(id.index())
    }
    /// Number of distinct values.
    pub fn len(&self) -> usize {
        self.items.len()
    }
    /// True when nothing was interned.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

impl<K: EntityId, V: Eq + Hash + Clone> std::ops::Index<K> for UniqueArena<K, V> {
    type Output = V;
    fn index(&self, id: K) -> &V {
        &self.items[id.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    entity_id!(
        /// test id
        TestId,
        "t"
    );

    #[test]
    fn interning_gives_equal_ids_for_equal_values() {
        let mut arena: UniqueArena<TestId, String> = UniqueArena::default();
        let a = arena.intern("x".to_string());
        let b = arena.intern("y".to_string());
        let c = arena.intern("x".to_string());
        assert_eq!(a, c);
        assert_ne!(a, b);
        assert_eq!(arena.len(), 2);
        assert_eq!(format!("{a}"), "t0");
    }

    #[test]
    fn primary_map_allocates_in_order() {
        let mut map: PrimaryMap<TestId, i32> = PrimaryMap::default();
        let a = map.push(10);
        let b = map.push(20);
        assert_eq!(map[a], 10);
        assert_eq!(map[b], 20);
        assert!(map.contains(b));
        assert!(!map.contains(TestId::new(2)));
    }
}

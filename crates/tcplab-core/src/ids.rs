//! Typed indices into the world's arenas. A `NodeId` can never be used where an `IfaceId` is
//! expected; all are plain `u32`s underneath.

macro_rules! id_type {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);
        impl $name {
            #[inline]
            pub fn idx(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(/// A node (host or router).
    NodeId);
id_type!(/// One direction-owning end of a link: the sender side of a point-to-point channel.
    IfaceId);
id_type!(/// A link (a pair of interfaces).
    LinkId);
id_type!(/// A TCP socket (one end of a connection).
    SockId);
id_type!(/// A flow as named in the scenario (an application with its socket pair).
    FlowId);
id_type!(/// A packet in the packet arena.
    PktId);

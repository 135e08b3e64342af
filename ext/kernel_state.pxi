# What every kernel's position does alike, written once.  Each kernel includes this
# file where its St, Cat, KernelCatalogue, MASK64, c_guided_rollout and PLAYOUT_ERROR
# (what a failed playout says) are declared, after search_ops.pxi and
# catalogue_cache.pxi (its _rebuild unpickles); its KernelState extends StructState and
# defines to_reference, which the methods that ask the reference rules go through.


cdef class StructState:
    """A position on the kernel's C struct, with the methods that read it alike in every
    kernel; the kernel's KernelState adds its rules."""

    # A registered class inherits nothing from State: the protocol's implementations
    # that fit the struct as they are are bound here.
    chance_outcomes = State.chance_outcomes
    apply_judged = State.apply_judged  # the twin's apply checks in C: cheap enough
    search_state = State.search_state
    legal_moves_text = State.legal_moves_text
    apply_text = State.apply_text

    cdef St s
    cdef const Cat* cat
    cdef KernelCatalogue kc
    cdef readonly int num_players
    cdef public long last_rollout_steps

    def __reduce__(self):
        return (_rebuild, (self.to_reference(),))

    # What the reference rules say of the position as they hold it: asked once per call,
    # never in search.
    def observation(self, seat) -> dict:
        return self.to_reference().observation(seat)

    def render(self, observer=None) -> str:
        return self.to_reference().render(observer)

    def score_breakdown(self) -> list:
        return self.to_reference().score_breakdown()

    @property
    def catalogue(self):
        return self.kc.catalogue

    cdef _copy_into(self, StructState twin):
        """Copy the struct into ``twin``, which shares the catalogue."""
        memcpy(&twin.s, &self.s, sizeof(St))
        twin.cat = self.cat
        twin.kc = self.kc
        twin.num_players = self.num_players

    def search_handle(self):
        """The position's struct and catalogue for the compiled search (a capsule that
        points into this object: the caller keeps the object alive while it reads)."""
        handle = PyCapsule_New(<void*>&self.s, b"furnace.position", NULL)
        PyCapsule_SetContext(handle, <void*>self.cat)
        return handle

    cdef object _determinized(self, observer, rng):
        """``determinize`` on the struct: the kernel's c_determinize, drawing from the
        ``random.Random`` ``rng`` the very words the reference rules draw (another
        generator class goes through the reference rules)."""
        elsewhere = determinized_elsewhere(self, observer, rng, self.num_players)
        if elsewhere is not None:
            return elsewhere
        cdef StructState twin = self.clone()
        cdef Words words = python_words(rng)
        twin._struct_changes()
        c_determinize(&twin.s, twin.cat, -1 if observer is None else observer, &words)
        return twin

    cdef _struct_changes(self):
        """Called before C code changes the struct: a kernel that keeps what it worked
        out of the position forgets it here."""

    def guided_playout(self, seed, double[::1] values, double epsilon, int[::1] trace,
                       long max_moves=0) -> int:
        """Epsilon-greedy moves over a move-value table in C (in place), exactly as
        ``engine.guided_playout.guided_playout``; returns the decisions recorded."""
        check_guided_arguments(seed, self.num_players, values.shape[0], max_moves)
        cdef uint64_t rng = <uint64_t>(seed & MASK64)
        cdef int err = 0
        cdef long recorded
        cdef int* trace_ptr = &trace[0] if trace.shape[0] else NULL
        self._struct_changes()
        with nogil:
            recorded = c_guided_rollout(&self.s, self.cat, &rng, &values[0], epsilon,
                                        trace_ptr, trace.shape[0], max_moves, &err)
        if err:
            raise ValueError(PLAYOUT_ERROR)
        return recorded

! A Fortran program for tests/watch: collectives through `use mpi` (this
! file) and through mpif.h (fortran_mpif.f90), MPI_IN_PLACE among them.
! Open MPI's Fortran bindings call PMPI_ directly, so only Fortran wrappers
! see these calls.
program fortran_collectives
  use mpi
  implicit none
  integer :: ierr, rank, nranks, i
  integer :: ibuf(4), ires(4), gathered(16)
  double precision :: x(2), y(2)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  x = (/ dble(rank), 1.0d0 /)
  call MPI_Allreduce(x, y, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,2f8.2)', 'fortran allreduce', y
  ibuf = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, ibuf, 4, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,4i4)', 'fortran in-place max', ibuf
  ibuf = 0
  if (rank == 0) ibuf = (/ 5, 6, 7, 8 /)
  call MPI_Bcast(ibuf, 4, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Reduce(ibuf, ires, 4, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,4i4)', 'fortran reduce', ires
  call MPI_Allgather(rank, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,4i4)', 'fortran allgather', gathered(1:nranks)
  call MPI_Gather(rank * 3, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,4i4)', 'fortran gather', gathered(1:nranks)
  call MPI_Scan(rank, i, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  do i = 1, 10
    call MPI_Allreduce(x, y, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  call through_mpif(rank)
  call MPI_Finalize(ierr)
end program fortran_collectives

! The same program's calls through mpif.h (the old interface), on a split
! communicator: evens and odds.
subroutine through_mpif(rank)
  implicit none
  include 'mpif.h'
  integer, intent(in) :: rank
  integer :: ierr, half, s, t(2)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
  call MPI_Allreduce(rank, s, 1, MPI_INTEGER, MPI_SUM, half, ierr)
  call MPI_Alltoall((/ rank, rank + 10 /), 1, MPI_INTEGER, t, 1, MPI_INTEGER, half, ierr)
  call MPI_Barrier(half, ierr)
  if (rank < 2) print '(a,i2,a,i4,a,2i4)', 'fortran mpif.h half', mod(rank, 2), ' sum', s, ' alltoall', t
  call MPI_Comm_free(half, ierr)
end subroutine through_mpif

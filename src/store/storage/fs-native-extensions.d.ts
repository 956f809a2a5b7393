// The part of fs-native-extensions the directory lock uses; the package ships no types.
declare module 'fs-native-extensions' {
  /**
   * Requests a lock on the file open as `fd`, exclusive unless `shared`: true when granted, false
   * when another open file holds a conflicting one. `length` 0 means to the end of the file.
   */
  export function tryLock(
    fd: number,
    offset?: number,
    length?: number,
    options?: { shared?: boolean },
  ): boolean;
  /** Lets go of a lock taken on `fd`. */
  export function unlock(fd: number, offset?: number, length?: number): void;
}

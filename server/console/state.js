// What the whole page shares: who is logged in and which view is shown. An object, so that the
// modules that change these (login, router) and those that read them see the same values.

export const state = {
  session: null,      // /api/v1/session's answer; null while logged out
  currentView: null,  // the view shown, one of router.js's views; null on the login page
};

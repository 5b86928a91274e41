# shotty shell integration for zsh: the user's .zprofile (login shells).
if [[ -z $SHOTTY_ZSH_NORCS && -r $SHOTTY_ZDOTDIR/.zprofile ]]; then
    __shotty_dir=$ZDOTDIR
    ZDOTDIR=$SHOTTY_ZDOTDIR
    . $ZDOTDIR/.zprofile
    ZDOTDIR=$__shotty_dir
    unset __shotty_dir
fi
